# SPDX-License-Identifier: MIT
"""The sqlite-simhash SQLite extension, for Python's sqlite3 module.

    import sqlite3, sqlite_simhash
    conn = sqlite3.connect("docs.db")
    sqlite_simhash.load(conn)

loadable_path() is the file for other tools that load extensions.
"""
import os
import sqlite3

__all__ = ["ExtensionLoadingUnavailable", "load", "loadable_path"]


class ExtensionLoadingUnavailable(RuntimeError):
    """This Python's sqlite3 module was built without extension loading."""


# Said once, so the test and the docs quote the same words. Python builds
# compiled without SQLITE_ENABLE_LOAD_EXTENSION (pyenv's default, some
# distributions') have no enable_load_extension at all, and the bare
# AttributeError it raises names neither the cause nor a way out.
_NO_LOADING = (
    "this Python's sqlite3 module cannot load extensions: {what} has no "
    "enable_load_extension() (its SQLite support was compiled without "
    "extension loading, as pyenv's and some distributions' Pythons are). "
    "Use a Python whose sqlite3 can (Debian's /usr/bin/python3; with pyenv, "
    'rebuild with PYTHON_CONFIGURE_OPTS="--enable-loadable-sqlite-extensions" '
    "and LDFLAGS/CPPFLAGS pointing at a SQLite that allows loading), or "
    "install the sqlean.py or pysqlite3 package and pass its connection."
)


def loadable_path():
    """The extension's path without its suffix (.so), which SQLite adds."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "simhash")


def load(conn: sqlite3.Connection) -> None:
    """Loads the extension into `conn`, leaving extension loading disabled.

    Raises TypeError when `conn` is not a connection (None, a path), and
    ExtensionLoadingUnavailable when the connection's module cannot load
    extensions at all.
    """
    if conn is None or isinstance(conn, (str, bytes, os.PathLike)):
        raise TypeError(f"sqlite_simhash.load: expected a database connection, got {type(conn).__name__}")
    enable = getattr(conn, "enable_load_extension", None)
    if enable is None or not hasattr(conn, "load_extension"):
        raise ExtensionLoadingUnavailable(_NO_LOADING.format(what=type(conn).__module__ + "." + type(conn).__qualname__))
    enable(True)
    try:
        conn.load_extension(loadable_path())
    finally:
        enable(False)
