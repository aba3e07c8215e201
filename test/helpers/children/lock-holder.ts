// Child process: takes the ledger's write lock (BEGIN IMMEDIATE), says so, and holds it until told:
// a line on stdin (or stdin closing, so it never outlives a test that failed), then releases.
import Database from 'better-sqlite3';

const [ledgerFile] = process.argv.slice(2);
const db = new Database(ledgerFile ?? '');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\n');
let isReleased = false;
const release = (): void => {
	if (isReleased) return;
	isReleased = true;
	db.exec('COMMIT');
	db.close();
	process.stdout.write('released\n');
	process.stdin.destroy();
};
process.stdin.on('data', release);
process.stdin.on('end', release);
