import {afterAll, describe, expect, it} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {homeWithLedger, runHookBin} from '../helpers/hook.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {Tmux} from '../helpers/tmux.ts';

const SESSION = 'inject';
const tmux = new Tmux();
afterAll(() => tmux.kill());

const ESC = '\u001b';
const BEL = '\u0007';
const SESSION_ID = '66666666-aaaa-4bbb-8ccc-000000000001';
/** A title change, a screen clear, a colour, a clipboard write (OSC 52): all a terminal would obey. */
const PROMPT = `EVIL ${ESC}]0;evil${BEL}${ESC}[2J${ESC}[31mRED${ESC}[0m ${ESC}]52;c;ZXZpbA==${BEL}end`;
/** CR/LF that would break the Needs you panel's one line, and a second title change. */
const MESSAGE = `ASK one\r\ntwo ${ESC}]0;evil2${BEL}${ESC}[41mBG`;

describe('an escape-laden prompt on a terminal', () => {
	it('is visible escaped text in snapshot, timeline and the board; the pane title and colours stay', async () => {
		// Given a session whose prompt and notification carry escape sequences, through the real hook
		const {home, ledgerFile} = homeWithLedger();
		for (const payload of [
			claudePayload('UserPromptSubmit', SESSION_ID, {prompt: PROMPT}),
			{
				...claudePayload('Stop', SESSION_ID),
				hook_event_name: 'Notification',
				message: MESSAGE,
				notification_type: 'permission_prompt',
			},
		])
			expect(runHookBin(home, [], JSON.stringify(payload)).status).toBe(0);
		// NO_COLOR: the board draws no colour of its own, so any red in the pane is one the text injected.
		tmux.start(SESSION, 160, 45, {CONTROLROOM_HOME: home, PATH: process.env['PATH'] ?? '', NO_COLOR: '1'});
		const title = (): string => tmux.run(['display-message', '-p', '-t', SESSION, '#{pane_title}']).trim();
		const titleBefore = title();
		/** Snapshot and the board cut a title to its column; the timeline shows it whole. */
		const shown = (pane: string): boolean => pane.includes('EVIL \\e]0;evil\\a\\e[2J\\e[31mRED');
		const shownWhole = (pane: string): boolean =>
			pane.includes('EVIL \\e]0;evil\\a\\e[2J\\e[31mRED\\e[0m \\e]52;c;ZXZpbA==\\aend');
		/** No red (31) foreground nor red (41) background anywhere: the injected colours were not drawn. */
		const injectedColour = (): boolean =>
			new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:31|41)m`).test(tmux.run(['capture-pane', '-p', '-e', '-t', SESSION]));

		// When `snapshot` prints it
		tmux.type(SESSION, `node ${BIN} snapshot --ledger ${ledgerFile}; echo SNAPSHOT-DONE`);
		tmux.send(SESSION, 'Enter');
		const snapshot = await tmux.waitFor(SESSION, pane => /^SNAPSHOT-DONE/m.test(pane), 15_000);
		// Then the prompt is escaped text on one line, the notification too, and nothing was obeyed
		expect(shown(snapshot.pane)).toBe(true);
		expect(snapshot.pane).toContain('ASK one\\r\\ntwo \\e]0;evil2\\a\\e[41mBG');
		expect(title()).toBe(titleBefore);
		expect(injectedColour()).toBe(false);

		// When `timeline` prints the task
		tmux.type(SESSION, `clear; node ${BIN} timeline ${SESSION_ID} --ledger ${ledgerFile}; echo TIMELINE-DONE`);
		tmux.send(SESSION, 'Enter');
		const timeline = await tmux.waitFor(SESSION, pane => /^TIMELINE-DONE/m.test(pane), 15_000);
		expect(shownWhole(timeline.pane)).toBe(true);
		expect(timeline.pane).toContain('ASK one\\r\\ntwo \\e]0;evil2\\a\\e[41mBG');
		expect(title()).toBe(titleBefore);
		expect(injectedColour()).toBe(false);

		// When the board shows it
		tmux.type(SESSION, `clear; node ${BIN} --ledger ${ledgerFile} --reconcile 3600`);
		tmux.send(SESSION, 'Enter');
		// The key bar is the board's alone: the snapshot's text above also reads NEEDS YOU (1) until the clear.
		const board = await tmux.waitFor(
			SESSION,
			pane => pane.includes('q quit') && pane.includes('NEEDS YOU (1)') && shown(pane),
			15_000,
		);
		// Then the Needs you line is one line with the CR/LF escaped, the title and colours unchanged
		const needLines = board.pane.split('\n').filter(line => line.includes('ASK one'));
		expect(needLines, board.pane).toHaveLength(1);
		expect(needLines[0]).toContain('ASK one\\r\\ntwo');
		expect(board.pane).not.toMatch(/^two /m);
		expect(title()).toBe(titleBefore);
		expect(injectedColour()).toBe(false);
	}, 60_000);
});
