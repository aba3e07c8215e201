import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN} from '../helpers/cli.ts';
import {Tmux} from '../helpers/tmux.ts';
import {sandbox} from '../producers/helpers.ts';

const SESSION = 'rules';
const tmux = new Tmux();
afterAll(() => tmux.kill());

describe.runIf(Tmux.isAvailable())('the board with a wrong reaction rule file', () => {
	it('says so on its notice line, escaped, instead of running no rule in silence', async () => {
		// Given a rule file whose event is misspelt and carries an escape sequence that would retitle the terminal
		const box = sandbox();
		openLedger(box.ledgerFile).close();
		const rules = join(box.dir, 'reactions.yaml');
		writeFileSync(rules, 'version: 1\nrules:\n  - name: r1\n    on: "ci-fail\u001b]0;pwned\u0007"\n    do: send\n');
		// When the board runs its first reconciler pass at once
		tmux.start(SESSION, 160, 45, {
			CONTROLROOM_HOME: box.home,
			CONTROLROOM_REACTIONS: rules,
			PATH: process.env['PATH'] ?? '',
		});
		tmux.type(SESSION, `node ${BIN} --ledger ${box.ledgerFile} --reconcile 1`);
		tmux.send(SESSION, 'Enter');
		// Then the notice line names the file's problem and that no rule runs, the escape shown as text
		const {pane} = await tmux.waitFor(SESSION, shown => shown.includes('no reaction rule runs on this board'), 20_000);
		expect(pane).toContain("unknown event 'ci-fail\\e]0;pwned\\a'");
		expect(tmux.run(['display-message', '-p', '-t', SESSION, '#{pane_title}'])).not.toContain('pwned');
		tmux.send(SESSION, 'q');
	}, 60_000);
});
