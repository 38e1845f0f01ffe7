# SPDX-License-Identifier: MIT
"""Builds the Python wheel around the built extension (scripts/build-wheel.sh),
checks its platform tag against the module's own needs (manylinux_2_<minor>
for the self-contained module, whose newest GLIBC_ symbol version gives the
minor, linux_<arch> for build/simhash.so, which needs the system's ICU and
libstdc++), installs it into a fresh virtual environment with
`pip install --no-index` (which takes a manylinux wheel only when this
machine's glibc is at least the one its tag names),
and runs the README's keep-one-of-each recipe from there, through
`sqlite_simhash.load(conn)` and `sqlite_simhash.loadable_path()`; then
Debian's sqlite-utils (3.30, which has no plugin hooks) reads the database
with `--load-extension=<loadable_path()>`, as docs/python.md shows.

Usage: python3 tests/python/test_wheel.py path/to/simhash.so
(run from the repository root, as ctest does; ctest sets
SIMHASH_SELF_CONTAINED=1 for the self-contained module).
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"

# Runs inside the virtual environment: near-duplicate texts in a table, the
# recipe, and what is left.
DEDUP = textwrap.dedent(
    """
    import os, sqlite3, sys
    import sqlite_simhash

    path = sqlite_simhash.loadable_path()
    assert path.startswith(sys.prefix), (path, sys.prefix)
    assert os.path.isfile(path + ".so"), path
    conn = sqlite3.connect("docs.db")
    sqlite_simhash.load(conn)
    base = " ".join(f"word{i}" for i in range(200))
    texts = [base, base + " one more", base.replace("word7 ", "") + " end",
             " ".join(f"other{i}" for i in range(200))]
    conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO docs(body) VALUES (?)", [(t,) for t in texts])
    conn.executescript('''
      CREATE VIRTUAL TABLE near USING simhash_index(k=3);
      INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM docs;
      CREATE TEMP TABLE verified AS
      SELECT * FROM (
        SELECT a, b, distance, simhash_jaccard(x.body, y.body, 'n=3 weight=binary') AS similarity
        FROM simhash_pairs('near', 10) JOIN docs AS x ON x.id = a JOIN docs AS y ON y.id = b)
      WHERE similarity >= 0.8;
      DELETE FROM docs WHERE id IN
        (SELECT id FROM simhash_clusters('verified') WHERE id <> cluster);
    ''')
    conn.commit()
    print(sorted(id for (id,) in conn.execute("SELECT id FROM docs")))
    print(path)
    """
)


# What the manylinux policy (PEP 600, as auditwheel applies it) lets a
# wheel's binary need from the system, beside glibc's symbol versions.
MANYLINUX_LIBRARIES = re.compile(
    r"^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|"
    r"ld-linux[-\w.]*\.so\.\d+|libgcc_s\.so\.1)$")


def expected_platform(loadable):
    """The tag the module calls for, from readelf, apart from the script's reading."""
    arch = os.uname().machine
    dynamic = subprocess.run(["readelf", "-d", loadable], check=True, capture_output=True,
                             text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    versions = subprocess.run(["readelf", "-V", "--wide", loadable], check=True,
                              capture_output=True, text=True).stdout
    required = set(re.findall(r"Name: (\S+)", versions.split(".gnu.version_r", 1)[-1]))
    if not all(MANYLINUX_LIBRARIES.match(library) for library in needed) or not all(
            re.match(r"^(GLIBC|GCC)_[\d.]+$", version) for version in required):
        return f"linux_{arch}"
    minors = [int(m) for m in re.findall(r"GLIBC_2\.(\d+)", " ".join(required))]
    return f"manylinux_2_{max(minors, default=5)}_{arch}"


class WheelTest(unittest.TestCase):
    def test_build_install_and_dedup_from_a_fresh_venv(self):
        loadable = os.path.realpath(EXTENSION if EXTENSION.endswith(".so") else EXTENSION + ".so")
        with tempfile.TemporaryDirectory() as work:
            dist = os.path.join(work, "dist")
            subprocess.run(["bash", "scripts/build-wheel.sh", loadable, dist], check=True,
                           stdout=subprocess.DEVNULL)
            (wheel,) = glob.glob(os.path.join(dist, "sqlite_simhash-*.whl"))
            platform = expected_platform(loadable)
            self.assertTrue(os.path.basename(wheel).endswith(f"-py3-none-{platform}.whl"),
                            (wheel, platform))
            # The self-contained module needs nothing outside the policy, so
            # it must be tagged manylinux (ctest says which module it is).
            if os.environ.get("SIMHASH_SELF_CONTAINED") == "1":
                self.assertRegex(platform, r"^manylinux_2_\d+_")
            print(f"\n{os.path.basename(wheel)}", file=sys.stderr)
            venv = os.path.join(work, "venv")
            subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
            python = os.path.join(venv, "bin", "python")
            subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index", wheel],
                           check=True)
            result = subprocess.run([python, "-c", DEDUP], cwd=work, check=True,
                                    capture_output=True, text=True)
            kept, path = result.stdout.splitlines()
            # The three copies of one text keep the first; the other text stays.
            self.assertEqual(kept, "[1, 4]", result.stderr)
            counts = subprocess.run(
                ["/usr/bin/sqlite-utils", "tables", os.path.join(work, "docs.db"), "--counts",
                 "--load-extension=" + path],
                check=True, capture_output=True, text=True).stdout
            self.assertIn('{"table": "near", "count": 4}', counts)


if __name__ == "__main__":
    unittest.main()
