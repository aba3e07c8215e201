import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {Tmux} from '../helpers/tmux.ts';

const tmux = new Tmux();
afterAll(() => tmux.kill());

/** SGR sequences that set a colour (foreground or background), as tmux writes them with -e. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*(3[0-9]|4[0-9]|9[0-7])[0-9;]*m`);

describe('NO_COLOR', () => {
	it('turns the board’s colours off when set, and leaves them on when empty', async () => {
		const ledgerFile = join(scratchDir(), 'ledger.db');
		const ledger = openLedger(ledgerFile);
		ledger.writer.append([event('t-1', 'task.registered', {title: 'colourful', cwd: '/tmp'}, Date.now())]);
		ledger.writer.append([event('t-1', 'task.started', {pid: process.pid}, Date.now())]);
		ledger.close();
		for (const [session, value, isColoured] of [
			['plain', '1', false],
			['coloured', '', true],
		] as const) {
			// CI=true as a CI machine's shell has it: a terminal still gets the colours (chalk alone would drop them).
			tmux.start(session, 120, 30, {NO_COLOR: value, CI: 'true'});
			// The test runner sets FORCE_COLOR=0 for its own output; a person's shell does not.
			tmux.type(session, `env -u FORCE_COLOR node ${BIN} --ledger ${ledgerFile}`);
			tmux.send(session, 'Enter');
			await tmux.waitFor(session, pane => pane.includes('RUNNING (1)') && pane.includes('colourful'), 20_000);
			const styled = tmux.run(['capture-pane', '-e', '-p', '-t', session]);
			expect(COLOUR.test(styled), `NO_COLOR=${JSON.stringify(value)}`).toBe(isColoured);
			tmux.send(session, 'q');
		}
	});
});
