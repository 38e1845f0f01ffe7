// SPDX-License-Identifier: MIT
// sqlite-simhash for Node.js: where the loadable module of this platform is
// (lib/<platform>-<arch>/simhash.so, put there by scripts/build-npm.sh) and
// load(db), which loads it into a better-sqlite3 Database or a node:sqlite
// DatabaseSync. docs/node.md is the manual.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

// The platforms whose module this copy of the package holds.
function platforms() {
  const lib = path.join(__dirname, "lib");
  try {
    return fs.readdirSync(lib).filter((name) => fs.existsSync(path.join(lib, name, "simhash.so")));
  } catch {
    return [];
  }
}

/** The module's path for this process's platform; throws when the package has none. */
function getLoadablePath() {
  const platform = `${process.platform}-${process.arch}`;
  const file = path.join(__dirname, "lib", platform, "simhash.so");
  if (!fs.existsSync(file)) {
    const held = platforms();
    throw new Error(
      `sqlite-simhash has no module for ${platform} (this package holds: ${held.join(", ") || "none"}); ` +
        "build it from the checkout (cmake --build build --target simhash) and load build/simhash.so " +
        "with db.loadExtension(), or pack the package on that platform (scripts/build-npm.sh)",
    );
  }
  return file;
}

/**
 * Loads the module into db: a better-sqlite3 Database, or a node:sqlite
 * DatabaseSync opened with { allowExtension: true } (Node 22.13 and later),
 * whose extension loading it switches on for the load and off again.
 */
function load(db) {
  if (db === null || typeof db !== "object" || typeof db.loadExtension !== "function") {
    throw new TypeError(
      "sqlite-simhash load(db): db must be a better-sqlite3 Database or a node:sqlite DatabaseSync " +
        "(an object with loadExtension())",
    );
  }
  const file = getLoadablePath();
  if (typeof db.enableLoadExtension !== "function") {
    // better-sqlite3: loading is always allowed through its own call, which
    // leaves SQL's load_extension() off.
    db.loadExtension(file);
    return;
  }
  // node:sqlite: loading must have been allowed when the database was opened;
  // its own error ("Cannot enable extension loading because it was disabled
  // at database creation") does not say how.
  try {
    db.enableLoadExtension(true);
  } catch (error) {
    throw new Error(
      "sqlite-simhash load(db): this node:sqlite database does not allow extensions; open it with " +
        `new DatabaseSync(path, { allowExtension: true }) (${error.message})`,
    );
  }
  try {
    db.loadExtension(file);
  } finally {
    db.enableLoadExtension(false);
  }
}

module.exports = { getLoadablePath, load };
