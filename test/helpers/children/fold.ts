// Child process: folds a spool folder into a ledger once (what `reconcile --once` does with spools).
// With a third argument N, it stops at the point a crash must not hurt: once the Nth file's events
// are committed and before that file is removed, it says `paused` and waits to be killed.
import {type PathLike, writeSync} from 'node:fs';
import {createRequire, syncBuiltinESMExports} from 'node:module';
import {openLedger} from '../../../src/ledger/open-ledger.ts';
import {foldSpool} from '../../../src/ledger/spool.ts';

const [ledgerFile, spool, pauseAt] = process.argv.slice(2);
if (pauseAt) {
	// The fold removes a file with unlinkSync after committing its events: the pause goes there.
	const fs = createRequire(import.meta.url)('node:fs') as {unlinkSync: (path: PathLike) => void};
	const unlink = fs.unlinkSync;
	let removals = 0;
	fs.unlinkSync = path => {
		removals += 1;
		if (removals === Number(pauseAt)) {
			writeSync(1, 'paused\n');
			// Killed here by the test; a minute at most, so it never outlives a failed test by long.
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
			process.exit(1);
		}
		unlink(path);
	};
	syncBuiltinESMExports();
}
const ledger = openLedger(ledgerFile ?? '');
const stats = foldSpool(ledger, spool ?? '');
ledger.close();
process.stdout.write(`${JSON.stringify(stats)}\n`);
