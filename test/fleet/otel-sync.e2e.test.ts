import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {cursorName} from '../../src/otel/ledger-export.ts';
import {OtlpCollector, type CollectedSpan} from '../helpers/otlp-collector.ts';
import {every, freshDatabase, stopOwnPgServer} from '../helpers/pg.ts';
import {onEvent, onOutput, waitFor} from '../helpers/wait-for.ts';
import {killQuietly, type Started} from '../producers/helpers.ts';
import {fleetCount, hostIdOf, localEvents, startAs, testHost, type TestHost} from './helpers.ts';

// `sync --otel-endpoint` (docs/otel.md, "From sync"): a host's sync process ships its ledger to a
// real PostgreSQL and exports it to a loopback OTLP/HTTP JSON collector, with the cursor
// `otel export` keeps.

const running: Started[] = [];
let collector: OtlpCollector | null = null;
afterEach(async () => {
	for (const started of running.splice(0)) killQuietly(started.child.pid);
	await collector?.stop();
	collector = null;
});
afterAll(() => stopOwnPgServer());

/** A wrapped run to its end on the host (a child, so the collector in this process keeps answering). */
async function runToEnd(host: TestHost, title: string): Promise<void> {
	const run = startAs(host, ['run', '--ledger', host.ledgerFile, '--title', title, '--', process.execPath, '-e', '0']);
	const {code} = await run.done;
	expect(code, run.stderr()).toBe(0);
}

function agentSpans(spans: readonly CollectedSpan[]): CollectedSpan[] {
	return spans.filter(span => span.name.startsWith('invoke_agent'));
}

/** The task ids of the host's runs with these titles. */
function taskIds(host: TestHost, titles: readonly string[]): string[] {
	const ledger = openLedger(host.ledgerFile);
	try {
		const tasks = ledger.reader.tasksForView(null);
		return titles.map(title => tasks.find(task => task.title === title)?.id ?? `no task ${title}`);
	} finally {
		ledger.close();
	}
}

function keptCursor(host: TestHost, endpoint: string): number {
	const ledger = openLedger(host.ledgerFile);
	try {
		return ledger.reader.counter(cursorName(endpoint));
	} finally {
		ledger.close();
	}
}

async function waitForFleetToHoldAll(url: string, host: TestHost, what: string): Promise<void> {
	await waitFor(
		async () => {
			const local = localEvents(host).length;
			return (await fleetCount(url, hostIdOf(host))) === local;
		},
		{what, timeoutMs: 30_000, on: [every(200)]},
	);
}

/** A loopback collector, and the host's sync exporting to it (a pass a second at most). */
async function startSyncAndCollector(url: string, host: TestHost): Promise<{current: OtlpCollector; sync: Started}> {
	const current = new OtlpCollector();
	collector = current;
	await current.start(0);
	const sync = startAs(host, [
		'sync',
		'--to',
		url,
		'--interval',
		'1',
		'--otel-endpoint',
		current.url,
		'--ledger',
		host.ledgerFile,
	]);
	running.push(sync);
	return {current, sync};
}

describe('sync --otel-endpoint', () => {
	it('exports the host ledger once while it syncs; a collector down for 10 s holds the sync up in nothing and loses nothing', async () => {
		const url = await freshDatabase();
		const host = testHost('otel-a');
		await runToEnd(host, 'before the sync 1');
		await runToEnd(host, 'before the sync 2');
		const {current, sync} = await startSyncAndCollector(url, host);
		await waitFor(() => agentSpans(current.spans).length === 2, {
			what: 'the two runs as invoke_agent spans',
			timeoutMs: 30_000,
			on: [onEvent(current, 'spans'), onOutput(sync.child.stderr)],
			explain: () => sync.stderr(),
		});
		await waitForFleetToHoldAll(url, host, 'the fleet to hold the first runs');
		expect(sync.stdout()).toMatch(/otel export: \d+ spans sent \(cursor \d+\)/);

		// The collector goes down; work goes on and the sync keeps shipping it to the fleet
		await current.stop();
		await runToEnd(host, 'while the collector is down 1');
		await waitFor(() => sync.stderr().includes('retrying (the sync goes on)'), {
			what: 'the sync to say the collector is down',
			timeoutMs: 30_000,
			on: [onOutput(sync.child.stderr)],
		});
		await runToEnd(host, 'while the collector is down 2');
		await waitForFleetToHoldAll(url, host, 'the fleet to hold the runs made while the collector is down');
		const cursorWhileDown = keptCursor(host, current.url);
		expect(cursorWhileDown).toBeLessThan(localEvents(host).at(-1)?.seq ?? 0);
		// The outage the acceptance line names: 10 s (the sync keeps its interval all along)
		await new Promise(resolve => setTimeout(resolve, 10_000));
		await waitForFleetToHoldAll(url, host, 'the fleet to still be up to date');
		await current.start(current.port);
		const [late1, late2] = taskIds(host, ['while the collector is down 1', 'while the collector is down 2']);
		await waitFor(
			() =>
				agentSpans(current.spans).some(span => span.attributes['controlroom.task.id'] === late1) &&
				agentSpans(current.spans).some(span => span.attributes['controlroom.task.id'] === late2),
			{what: 'the spans of the runs made while the collector was down', timeoutMs: 60_000, on: [onEvent(current, 'spans')]},
		);
		await waitFor(() => sync.stderr().includes('the collector is back'), {
			what: 'the sync to say the collector is back',
			on: [onOutput(sync.child.stderr)],
		});
		const ids = current.spans.map(span => span.spanId);
		expect(new Set(ids).size).toBe(ids.length);
		expect(agentSpans(current.spans)).toHaveLength(4);
		expect(sync.stderr().match(/retrying/g)).toHaveLength(1);
		sync.child.kill('SIGTERM');
		expect((await sync.done).code).toBe(143);
		// Every span went once: an export run now finds nothing left to send
		const again = startAs(host, ['otel', 'export', '--endpoint', current.url, '--ledger', host.ledgerFile]);
		expect((await again.done).code, again.stderr()).toBe(0);
		expect(current.spans.map(span => span.spanId)).toEqual(ids);
	}, 180_000);

	it('with otel export --follow on the same ledger and endpoint: one sends, the other waits and takes over, no span twice', async () => {
		const url = await freshDatabase();
		const host = testHost('otel-b');
		await runToEnd(host, 'first');
		const {current, sync} = await startSyncAndCollector(url, host);
		await waitFor(() => agentSpans(current.spans).length === 1, {
			what: 'the first span, from the sync',
			timeoutMs: 30_000,
			on: [onEvent(current, 'spans')],
		});
		// A one-shot export refuses; a following one waits its turn
		const once = startAs(host, ['otel', 'export', '--endpoint', current.url, '--ledger', host.ledgerFile]);
		const refused = await once.done;
		expect(refused.code).toBe(75);
		expect(once.stderr().trim().split('\n')).toHaveLength(1);
		expect(once.stderr()).toMatch(
			/^controlroom: otel export: sync --otel-endpoint \(pid \d+, since [^)]+\) exports this ledger to/,
		);
		const follow = startAs(host, ['otel', 'export', '--endpoint', current.url, '--follow', '--ledger', host.ledgerFile]);
		running.push(follow);
		await waitFor(() => follow.stderr().includes('waiting to take over'), {
			what: 'the export to wait for the sync',
			timeoutMs: 20_000,
			on: [onOutput(follow.child.stderr)],
		});
		expect(follow.stderr()).toContain(`(pid ${sync.child.pid},`);
		await runToEnd(host, 'second');
		const [second] = taskIds(host, ['second']);
		await waitFor(() => agentSpans(current.spans).some(span => span.attributes['controlroom.task.id'] === second), {
			what: 'the second span',
			timeoutMs: 30_000,
			on: [onEvent(current, 'spans')],
		});
		expect(follow.stdout()).toBe('');
		// The sync ends: the export takes the ledger over from the same cursor
		sync.child.kill('SIGTERM');
		expect((await sync.done).code).toBe(143);
		await runToEnd(host, 'third');
		const [thirdId] = taskIds(host, ['third']);
		// The export's line comes once the collector answered, so after the span
		await waitFor(
			() =>
				agentSpans(current.spans).some(span => span.attributes['controlroom.task.id'] === thirdId) &&
				/otel export: \d+ spans sent/.test(follow.stdout()),
			{
				what: 'the third span, from the export that took over',
				timeoutMs: 30_000,
				on: [onEvent(current, 'spans'), onOutput(follow.child.stdout)],
			},
		);
		const ids = current.spans.map(span => span.spanId);
		expect(new Set(ids).size).toBe(ids.length);
		expect(agentSpans(current.spans)).toHaveLength(3);
		follow.child.kill('SIGTERM');
		expect((await follow.done).code).toBe(143);
	}, 120_000);

	it('--once: syncs and exports; a collector that is down gives 69 after the sync is done, the cursor kept', async () => {
		const url = await freshDatabase();
		const host = testHost('otel-c');
		await runToEnd(host, 'one');
		collector = new OtlpCollector();
		await collector.start(0);
		const current = collector;
		await current.stop();
		const down = startAs(host, ['sync', '--to', url, '--once', '--otel-endpoint', current.url, '--ledger', host.ledgerFile]);
		expect((await down.done).code).toBe(69);
		expect(down.stderr().trim().split('\n')).toHaveLength(1);
		expect(down.stderr()).toMatch(/^controlroom: sync: otel export: .+; the cursor stays at 0$/m);
		expect(await fleetCount(url, hostIdOf(host))).toBe(localEvents(host).length);
		expect(keptCursor(host, current.url)).toBe(0);
		await current.start(current.port);
		const up = startAs(host, ['sync', '--to', url, '--once', '--otel-endpoint', current.url, '--ledger', host.ledgerFile]);
		expect((await up.done).code, up.stderr()).toBe(0);
		expect(agentSpans(current.spans)).toHaveLength(1);
		expect(keptCursor(host, current.url)).toBe(localEvents(host).at(-1)?.seq);
		const bad = startAs(host, ['sync', '--to', url, '--otel-endpoint', 'ftp://x', '--ledger', host.ledgerFile]);
		expect((await bad.done).code).toBe(64);
		expect(bad.stderr()).toBe("controlroom: --otel-endpoint: expected an http:// or https:// URL, got 'ftp://x'\n");
	}, 60_000);
});
