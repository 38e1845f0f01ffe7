"""The sqlite-simhash SQLite extension, for Python's sqlite3 module.

    import sqlite3, sqlite_simhash
    conn = sqlite3.connect("docs.db")
    sqlite_simhash.load(conn)

loadable_path() is the file for other tools that load extensions.
"""
import os
import sqlite3

__all__ = ["load", "loadable_path"]


def loadable_path():
    """The extension's path without its suffix (.so), which SQLite adds."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "simhash")


def load(conn: sqlite3.Connection) -> None:
    """Loads the extension into `conn`, leaving extension loading disabled."""
    conn.enable_load_extension(True)
    try:
        conn.load_extension(loadable_path())
    finally:
        conn.enable_load_extension(False)
