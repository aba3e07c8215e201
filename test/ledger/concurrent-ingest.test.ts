import {spawn} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';

function historyOf(tag: string, events: number): string {
	const lines: string[] = [];
	for (let index = 0; index < events; index += 1) {
		const session = `${tag}-session-${Math.floor(index / 100)}`;
		lines.push(
			JSON.stringify({
				at: new Date(1_780_000_000_000 + index).toISOString(),
				source: 'claude',
				payload: {
					session_id: session,
					hook_event_name: 'PostToolUse',
					tool_name: 'Bash',
					tool_use_id: `${tag}-${index}`,
					cwd: '/repo',
				},
			}),
		);
	}
	return lines.join('\n');
}

function ingest(file: string, db: string): Promise<{code: number | null; stderr: string}> {
	return new Promise(resolve => {
		const child = spawn(process.execPath, [BIN, 'ingest', file, '--ledger', db], {stdio: ['ignore', 'ignore', 'pipe']});
		let stderr = '';
		child.stderr.on('data', chunk => (stderr += chunk));
		child.on('close', code => resolve({code, stderr}));
	});
}

describe('concurrent ingest', () => {
	it('two processes each ingesting 10,000 events into one ledger end with 20,000 events', async () => {
		// Given two histories of 10,000 distinct events each
		const dir = scratchDir();
		const db = join(dir, 'ledger.db');
		writeFileSync(join(dir, 'a.jsonl'), historyOf('a', 10_000));
		writeFileSync(join(dir, 'b.jsonl'), historyOf('b', 10_000));
		// When both are ingested at the same time
		const results = await Promise.all([ingest(join(dir, 'a.jsonl'), db), ingest(join(dir, 'b.jsonl'), db)]);
		// Then neither failed and nothing was lost, and the one that made the ledger said so
		expect(results.map(result => result.code)).toEqual([0, 0]);
		expect(results.map(result => result.stderr).sort()).toEqual(['', `controlroom: created a new, empty ledger at ${db}\n`]);
		const ledger = openLedger(db);
		try {
			expect(ledger.reader.eventCount()).toBe(20_000);
			expect(ledger.reader.statusCounts().running).toBe(200);
		} finally {
			ledger.close();
		}
	});
});
