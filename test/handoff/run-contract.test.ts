import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';

/** A stand-in agent named like the real one: it writes the arguments it got to ARGS_FILE. */
function fakeAgent(name: string): string {
	const folder = join(scratchDir('cr-bin-'), 'bin');
	mkdirSync(folder);
	const file = join(folder, name);
	writeFileSync(
		file,
		`#!${process.execPath}\nrequire('node:fs').writeFileSync(process.env.ARGS_FILE, JSON.stringify(process.argv.slice(2)));\n`,
	);
	chmodSync(file, 0o755);
	return file;
}

describe('controlroom run --contract', () => {
	it('exits 1 naming the field and starts no process when the contract is invalid', () => {
		// Given an invalid contract and a command that would leave a marker if it ever ran
		const repo = makeContractRepo();
		const marker = join(scratchDir(), 'ran');
		const ledger = join(scratchDir(), 'ledger.db');
		const contract = repo.place('unknown-base-revision.yaml');
		// When run is asked to start it
		const result = runCli([
			'run',
			'--contract',
			contract,
			'--ledger',
			ledger,
			'--',
			process.execPath,
			'-e',
			`require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
		]);
		// Then it refuses, names the field, and nothing ran or was registered
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^error +context\.base_revision: no such commit/m);
		expect(existsSync(marker)).toBe(false);
		if (existsSync(ledger)) {
			const db = openLedger(ledger);
			try {
				expect(db.reader.eventCount()).toBe(0);
			} finally {
				db.close();
			}
		}
	});

	it('appends the contract to the prompt of claude -p and titles the task after it', () => {
		const repo = makeContractRepo();
		const argsFile = join(scratchDir(), 'args.json');
		const ledger = join(scratchDir(), 'ledger.db');
		const claude = fakeAgent('claude');
		const result = runCli(
			['run', '--contract', repo.place('valid-task.md'), '--ledger', ledger, '--', claude, '-p', 'fix the export'],
			{env: {ARGS_FILE: argsFile}},
		);
		expect(result.stderr).toContain('put into the first turn (appended to the prompt)');
		expect(result.status).toBe(0);
		const args = JSON.parse(readFileSync(argsFile, 'utf8')) as string[];
		// The prompt, then the hold hook a wrapped claude -p is given (docs/headless-holds.md).
		expect(args).toHaveLength(4);
		expect(args[0]).toBe('-p');
		expect(args[2]).toBe('--settings');
		expect(JSON.parse(args[3] ?? '')).toMatchObject({hooks: {PreToolUse: [{matcher: '*'}]}});
		expect(args[1]).toMatch(/^fix the export\n\nYou have been handed a task contract/);
		expect(args[1]).toContain(`base_revision: ${repo.head}`);
		const db = openLedger(ledger);
		try {
			expect(db.reader.tasksForView(null).map(task => task.title)).toEqual(['Preserve the selected filters in CSV export']);
		} finally {
			db.close();
		}
	});

	it('adds the contract as the prompt of codex exec when there is none, and fills {{contract}} anywhere', () => {
		const repo = makeContractRepo();
		const contract = repo.place('valid-bug.yaml');
		const argsFile = join(scratchDir(), 'args.json');
		const codex = fakeAgent('codex');
		expect(runCli(['run', '--contract', contract, '--', codex, 'exec', '--json'], {env: {ARGS_FILE: argsFile}}).status).toBe(0);
		const codexArgs = JSON.parse(readFileSync(argsFile, 'utf8')) as string[];
		expect(codexArgs.slice(0, 2)).toEqual(['exec', '--json']);
		expect(codexArgs[2]).toMatch(/^You have been handed a bug contract/);

		const other = fakeAgent('my-agent');
		expect(runCli(['run', '--contract', contract, '--', other, '--task={{contract}}'], {env: {ARGS_FILE: argsFile}}).status).toBe(
			0,
		);
		expect((JSON.parse(readFileSync(argsFile, 'utf8')) as string[])[0]).toMatch(/^--task=You have been handed a bug contract/);

		const never = join(scratchDir(), 'never.json');
		const refused = runCli(['run', '--contract', contract, '--', other, 'go'], {env: {ARGS_FILE: never}});
		expect(refused.status).toBe(1);
		expect(refused.stderr).toContain('{{contract}}');
		expect(existsSync(never)).toBe(false);
	});
});
