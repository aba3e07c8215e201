import {existsSync, mkdirSync, readdirSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {writeOrder} from '../helpers/effects.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {expectOneLine} from '../helpers/one-line.ts';

// A typo in a path is not a yes: every command given a path that does not exist refuses it with one
// line and creates nothing, unless it was told to (`hooks install --create`) and says it did.

/** A sandbox whose HOME, agent folders and controlroom home are scratch folders. */
function sandbox() {
	const root = scratchDir('cr-paths-');
	const env = {
		HOME: join(root, 'home'),
		CODEX_HOME: join(root, 'codex'),
		CONTROLROOM_HOME: join(root, 'state'),
		CLAUDE_CONFIG_DIR: '',
	};
	mkdirSync(env.HOME);
	return {root, env, missing: join(root, 'no-such-project')};
}

describe('a path that does not exist is never created unless the command says so', () => {
	it('hooks install --claude --project on a missing folder exits 64 and creates nothing', () => {
		const {root, env, missing} = sandbox();
		const before = readdirSync(root).sort();
		const result = runCli(['hooks', 'install', '--claude', '--project', missing], {env});
		expectOneLine(result, 64, new RegExp(`--project ${missing}: no such folder; nothing was written .*--create`));
		expect(result.stdout).toBe('');
		expect(readdirSync(root).sort()).toEqual(before);
		expect(existsSync(join(env.HOME, '.claude'))).toBe(false);
	});

	it('uninstall and status with a missing --project exit 64 too, and a file given as --project is not a folder', () => {
		const {root, env, missing} = sandbox();
		for (const verb of ['uninstall', 'status']) {
			expectOneLine(runCli(['hooks', verb, '--project', missing], {env}), 64, /no such folder/);
		}
		const ledger = freshLedgerFile(root);
		expectOneLine(runCli(['hooks', 'install', '--claude', '--project', ledger], {env}), 64, /is not a folder/);
		expect(existsSync(missing)).toBe(false);
	});

	it('hooks install --create makes the folder and says so; --create without install --project is refused', () => {
		const {env, missing} = sandbox();
		const made = runCli(['hooks', 'install', '--claude', '--project', missing, '--create'], {env});
		expect(made.status, made.stderr).toBe(0);
		expect(made.stdout).toContain(`hooks: created the folder ${missing} (--create)`);
		expect(existsSync(join(missing, '.claude', 'settings.json'))).toBe(true);
		expectOneLine(runCli(['hooks', 'status', '--create'], {env}), 64, /--create goes with install --project DIR/);
	});

	it('contract new and contract template refuse a FILE whose folder does not exist', () => {
		const {root, env, missing} = sandbox();
		const before = readdirSync(root).sort();
		for (const args of [
			['contract', 'new', '--kind', 'task', join(missing, 'task.md')],
			['contract', 'template', 'evidence', join(missing, 'evidence.yaml')],
		]) {
			expectOneLine(runCli(args, {env}), 64, new RegExp(`no folder ${missing} to hold \\S+; create it first`));
		}
		expect(readdirSync(root).sort()).toEqual(before);
	});

	it('order derive --out into a missing folder exits 64 before the ledger records a derivation', () => {
		const {root, env, missing} = sandbox();
		const ledger = freshLedgerFile(root);
		const order = writeOrder(
			root,
			`order: o-7
worker: w
budget: {calls: 5}
upstreams:
  fs:
    command: ${process.execPath}
    args: [server.js]
    allow: [write_file]
`,
		);
		const result = runCli(['order', 'derive', order, '--worker', 'sub', '--out', join(missing, 'sub.yaml'), '--ledger', ledger], {
			env,
		});
		expectOneLine(result, 64, /order derive: --out: no folder .* to hold sub\.yaml/);
		expect(existsSync(missing)).toBe(false);
		const opened = openLedger(ledger);
		try {
			expect(opened.reader.eventsOfType([EventType.orderDerived])).toEqual([]);
		} finally {
			opened.close();
		}
	});
});
