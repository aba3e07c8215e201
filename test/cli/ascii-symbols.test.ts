import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';

const ASCII_ONLY = /^[^\u0080-\uffff]*$/;

/** A ledger whose text draws symbols: an unseen ended task with progress, a title in Japanese, a task with no title, a need. */
function ledger(): string {
	const file = join(scratchDir(), 'ledger.db');
	const opened = openLedger(file);
	const now = Date.now();
	opened.writer.append([
		event('w-jp0001', EventType.registered, {title: 'fix export — 日本語の表 ✓', source: 'wrapper'}, now - 60_000),
		event('w-jp0001', EventType.progressed, {done: 2, total: 4, from: 'PROGRESS'}, now - 50_000),
		event('w-jp0001', EventType.exited, {exitCode: 0}, now - 40_000),
		event('w-none01', EventType.registered, {source: 'wrapper'}, now - 30_000),
		event('w-none01', EventType.needRaised, {message: 'which branch → main?', kind: 'person', lane: 'needs'}, now - 20_000),
	]);
	opened.close();
	return file;
}

describe('an ASCII terminal (LANG=C, LC_ALL=C, TERM=dumb) gets ASCII symbols', () => {
	it('LANG=C LC_ALL=C controlroom snapshot prints ASCII only, its columns where a UTF-8 terminal has them', () => {
		const file = ledger();
		const utf8 = runCli(['snapshot', '--ledger', file], {env: {LANG: 'C.UTF-8', LC_ALL: '', TERM: 'xterm'}});
		const ascii = runCli(['snapshot', '--ledger', file], {env: {LANG: 'C', LC_ALL: 'C'}});
		expect(ascii.status, ascii.stderr).toBe(0);
		// The UTF-8 text draws the symbols the ASCII one must not
		for (const symbol of ['·', '●', '█', '░', '—', '日本語']) expect(utf8.stdout).toContain(symbol);
		expect(ascii.stdout).toMatch(ASCII_ONLY);
		expect(ascii.stdout).toContain('running 1 | stalled 0');
		expect(ascii.stdout).toMatch(/^\* w-jp0001 +fix export - \?{10} \? +wrapper +done .* #####\.{5} 2\/4 /m);
		// Line for line and cell for cell the same layout
		const lines = (text: string) => text.split('\n').map(line => [...line.replace(/[\u3000-\u9fff]/g, '??')].length);
		expect(lines(ascii.stdout).slice(1)).toEqual(lines(utf8.stdout).slice(1));
	});

	it('timeline, explain and the JSON outputs are ASCII too; the JSON is the same JSON', () => {
		const file = ledger();
		const env = {LANG: 'C', LC_ALL: 'C'};
		for (const args of [
			['timeline', 'w-jp0001'],
			['explain', 'w-jp0001'],
			['timeline', 'w-jp0001', '--json'],
			['snapshot', '--json'],
		]) {
			const result = runCli([...args, '--ledger', file], {env});
			expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
			expect(result.stdout, args.join(' ')).toMatch(ASCII_ONLY);
		}
		const json = JSON.parse(runCli(['snapshot', '--json', '--ledger', file], {env}).stdout) as {tasks: {title: string}[]};
		expect(json.tasks.map(task => task.title)).toContain('fix export — 日本語の表 ✓');
	});

	it('TERM=dumb gets ASCII whatever the locale', () => {
		const result = runCli(['snapshot', '--ledger', ledger()], {env: {LANG: 'en_US.UTF-8', TERM: 'dumb'}});
		expect(result.stdout).toMatch(ASCII_ONLY);
		expect(result.stdout).toContain('* w-jp0001');
	});
});
