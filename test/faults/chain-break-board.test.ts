import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {rewriteChainFrom} from '../helpers/rewrite-chain.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {Tmux} from '../helpers/tmux.ts';
import {join} from 'node:path';

const tmux = new Tmux();
afterAll(() => tmux.kill());

/** A ledger of a few finished tasks in its own home. */
function home(): {home: string; file: string} {
	const dir = scratchDir('cr-chain-board-');
	const file = join(dir, 'ledger.db');
	const ledger = openLedger(file);
	for (const id of ['w-1', 'w-2', 'w-3']) {
		ledger.writer.append([event(id, EventType.registered, {title: `task ${id}`}, Date.now() - 60_000)]);
		ledger.writer.append([event(id, EventType.exited, {exitCode: 0, signal: null}, Date.now() - 30_000)]);
	}
	ledger.close();
	return {home: dir, file};
}

describe("the board's own check of the hash chain", () => {
	it('says in red, on a line that stays, where an edited ledger breaks, when it opens', async () => {
		const {home: dir, file} = home();
		withRawDb(file, db =>
			db.exec(`DROP TRIGGER events_refuse_update; UPDATE events SET data = '{"exitCode":1,"signal":null}' WHERE seq = 4`),
		);
		tmux.start('opened', 160, 30, {CONTROLROOM_HOME: dir, PATH: process.env['PATH'] ?? ''});
		tmux.type('opened', `node ${BIN}`);
		tmux.send('opened', 'Enter');
		const pane = await tmux.waitFor('opened', text => text.includes('hash chain'), 20_000);
		expect(pane.pane).toMatch(/⚠ the ledger's hash chain is broken: seq 4 edited: seq 4 was edited/);
		expect(pane.pane).toContain('RECENTLY ENDED (3)');
		tmux.send('opened', 'q');
	}, 60_000);

	it('finds a rewrite made while it is open, against the anchors kept beside the ledger', async () => {
		const {home: dir, file} = home();
		// The reconciler's anchor of the head (as reconcile writes it every five minutes)
		expect(runCli(['reconcile', '--once', '--ledger', file]).status).toBe(0);
		tmux.start('live', 160, 30, {CONTROLROOM_HOME: dir, PATH: process.env['PATH'] ?? ''});
		tmux.type('live', `node ${BIN}`);
		tmux.send('live', 'Enter');
		await tmux.waitFor('live', text => text.includes('RECENTLY ENDED (3)'), 20_000);
		rewriteChainFrom(file, 4, '{"exitCode":1,"signal":null}');
		const pane = await tmux.waitFor('live', text => text.includes('hash chain'), 30_000);
		// Whether the board's first look came before the rewrite or after: its head, or the anchor, no longer holds
		expect(pane.pane).toMatch(/⚠ the ledger's hash chain is broken: seq \d+ (is not the event the board checked|rewritten: )/);
		tmux.send('live', 'q');
	}, 60_000);
});
