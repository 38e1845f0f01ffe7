// SPDX-License-Identifier: MIT
// Types of sqlite-simhash's Node.js entry points (index.js).

/** What load() accepts: a better-sqlite3 Database or a node:sqlite DatabaseSync. */
export interface LoadableDatabase {
  loadExtension(file: string, entryPoint?: string): unknown;
  /** node:sqlite only: switched on for the load and off again. */
  enableLoadExtension?(allow: boolean): void;
}

/** The module's path for this process's platform (lib/<platform>-<arch>/simhash.so); throws when the package has none. */
export function getLoadablePath(): string;

/**
 * Loads the module into db. Read fingerprints with safeIntegers(true)
 * (better-sqlite3) or statement.setReadBigInts(true) (node:sqlite): they are 64-bit and a
 * JS number keeps only 53 bits.
 */
export function load(db: LoadableDatabase): void;
