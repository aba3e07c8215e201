// Child process: takes the ledger's write lock (BEGIN IMMEDIATE), says so, holds it, then releases.
import Database from 'better-sqlite3';

const [ledgerFile, holdMs] = process.argv.slice(2);
const db = new Database(ledgerFile ?? '');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\n');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(holdMs));
db.exec('COMMIT');
db.close();
process.stdout.write('released\n');
