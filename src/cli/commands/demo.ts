import {mkdtempSync, readFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {ingestLines} from '../../ledger/ingest.ts';
import {openLedger} from '../../ledger/open-ledger.ts';
import {readSnapshot} from '../../ledger/snapshot-query.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {packageRoot} from '../package-root.ts';
import {printSnapshotText} from '../print-snapshot.ts';

export const usage = `controlroom demo
  Builds a scratch ledger and shows it.`;

/** `controlroom demo`: a scratch ledger from sample payloads, shown once. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values} = parseCommandArgs('demo', argv, {});
	if (values.help) return (out(usage), 0);
	const dir = mkdtempSync(join(tmpdir(), 'controlroom-demo-'));
	const ledger = openLedger(join(dir, 'ledger.db'));
	try {
		const sample = readFileSync(join(packageRoot(), 'test/fixtures/demo-history.jsonl'), 'utf8');
		ingestLines(ledger, sample.split('\n'), {origin: 'demo', now: Date.now()});
		out(printSnapshotText(readSnapshot(ledger.reader, {now: Date.now(), windowMs: null})));
		out(`\nscratch ledger: ${ledger.path}`);
		return 0;
	} finally {
		ledger.close();
	}
}
