import {spawn} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {foldSpool} from '../../src/ledger/spool.ts';
import {childScript} from '../helpers/children.ts';
import {homeWithLedger, spoolFiles, withLedger} from '../helpers/hook.ts';

const WRITERS = 8;
const CALLS = 2000;

function runWriter(home: string, writer: number): Promise<Record<string, number>> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [childScript('hook-writer'), home, String(writer), String(CALLS)], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.on('exit', code => (code === 0 ? resolve(JSON.parse(output) as Record<string, number>) : reject(new Error(`writer ${writer} exited ${code}`))));
	});
}

describe('8 concurrent hook writers', () => {
	// Each writer process calls the hook's entry in-process (handleHookInput: parse, open the ledger
	// with its 25 ms busy timeout, append or spool, close) 2,000 times, instead of 16,000 node starts.
	it('x 2,000 hook calls: 16,000 events after a fold, none lost, none duplicated', async () => {
		// Given a ledger and 8 writers racing for it
		const {home, ledgerFile, spool} = homeWithLedger();
		const outcomes = await Promise.all(Array.from({length: WRITERS}, (_, writer) => runWriter(home, writer)));
		// Then no call dropped its event; every one went to the ledger or the spool
		const total = (key: string) => outcomes.reduce((sum, outcome) => sum + (outcome[key] ?? 0), 0);
		expect(total('dropped')).toBe(0);
		expect(total('ledger') + total('spool')).toBe(WRITERS * CALLS);
		expect(spoolFiles(spool)).toHaveLength(total('spool'));
		// When the spool is folded
		withLedger(ledgerFile, ledger => {
			foldSpool(ledger, spool);
			// Then every call is in the ledger exactly once
			const ids = ledger.reader
				.eventsOfType(['agent.event'])
				.map(event => (event.data['payload'] as Record<string, unknown>)['tool_use_id']);
			expect(ids).toHaveLength(WRITERS * CALLS);
			expect(new Set(ids).size).toBe(WRITERS * CALLS);
			for (let writer = 0; writer < WRITERS; writer += 1) {
				const task = ledger.reader.resolveTask(`writer-${writer}`);
				expect(task?.pid).toBeGreaterThan(0);
			}
			expect(ledger.reader.counter('hook.dropped')).toBe(0);
			expect(ledger.reader.rejectCount()).toBe(0);
		});
		expect(spoolFiles(spool)).toEqual([]);
		process.stderr.write(`concurrency: ${total('ledger')} calls wrote the ledger, ${total('spool')} spooled\n`);
	}, 300_000);
});
