import {spawnSync} from 'node:child_process';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {FS_SERVER, orderInLedger, writeOrder} from '../helpers/effects.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {waitFor} from '../helpers/wait-for.ts';

const tmux = new Tmux();
afterAll(() => tmux.kill());

type LoggedRequest = {body?: {messages?: {role: string; content: unknown}[]}; response?: {decision?: {kind: string}}};

describe('the effect gate with the real Claude Code', () => {
	it('gives Claude the placeholder; its own Bash effects approve is refused and shown; space and a on the board approve it and the file appears once', async () => {
		// Given a work order over the real filesystem server, offered as the MCP server `gw` (the order
		// gives its one upstream the empty prefix, so Claude sees mcp__gw__write_file)
		const work = scratchDir('cr-effects-claude-');
		const srv = join(work, 'srv');
		mkdirSync(srv);
		// Only a command that owns a ledger makes one; the gateway needs it there (docs/cli.md).
		const ledger = freshLedgerFile(work);
		const order = writeOrder(
			work,
			`order: o-claude
worker: claude-worker
budget: {calls: 10}
upstreams:
  fs:
    command: ${process.execPath}
    args: [${FS_SERVER}, ${srv}]
    allow: [read_text_file, write_file]
    prefix: ""
`,
		);
		const mcpConfig = join(work, 'mcp.json');
		writeFileSync(
			mcpConfig,
			JSON.stringify({
				mcpServers: {gw: {command: process.execPath, args: [BIN, 'gateway', '--order', order, '--ledger', ledger]}},
			}),
		);
		const target = join(srv, 'hello.txt');
		const script = join(work, 'script.json');
		writeFileSync(
			script,
			JSON.stringify([
				{tool: 'mcp__gw__write_file', input: {path: target, content: 'hello from claude\n'}},
				// The worker tries to approve its own held write through its Bash tool
				{
					tool: 'Bash',
					input: {command: `${process.execPath} ${BIN} effects approve o-claude --ledger ${ledger}`, description: 'approve'},
				},
				{text: 'The write is held for approval. effects: [pending:fs/write_file#1]'},
			]),
		);

		// When the real claude -p runs the scripted call through the gateway
		const fakeLog = join(work, 'fake.jsonl');
		const run = spawnSync(
			realClientScript('claude-offline.sh'),
			[work, '-p', 'write hello.txt', '--mcp-config', mcpConfig, '--allowedTools', 'mcp__gw__write_file,Bash'],
			{
				env: {
					...process.env,
					...requireRealClients(),
					SCENARIO: 'script',
					SCRIPT_FILE: script,
					ENABLE_TOOL_SEARCH: 'false',
					FAKE_LOG: fakeLog,
				},
				encoding: 'utf8',
			},
		);

		// Then the model got the placeholder as the tool's result, answered with text and the turn ended
		expect(run.status, run.stderr).toBe(0);
		expect(run.stdout).toContain('held for approval');
		const requests = readFileSync(fakeLog, 'utf8')
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as LoggedRequest)
			.filter(request => request.response?.decision);
		const answered = requests.find(request =>
			JSON.stringify(request.body?.messages?.at(-1)?.content ?? '').includes('pending:fs/write_file#1'),
		);
		expect(answered?.response?.decision?.kind).toBe('tool');
		expect(requests.at(-1)?.response?.decision?.kind).toBe('text');
		// Its Bash approval was refused: Claude got the one line, nothing was written, the attempt is recorded
		const bashResult = JSON.stringify(requests.at(-1)?.body?.messages?.at(-1)?.content ?? '');
		expect(bashResult).toContain('controlroom: effects approve o-claude: refused: only a person at a terminal says yes');
		expect(existsSync(target)).toBe(false);
		const open = openLedger(ledger);
		try {
			const refused = open.reader.eventsOfType([EventType.gateRefused]).map(event => [event.taskId, event.data]);
			expect(refused).toEqual([
				[
					'o-claude',
					expect.objectContaining({verb: 'effects approve', target: 'o-claude', reason: expect.stringMatching(/CLAUDE|claude/)}),
				],
			]);
		} finally {
			open.close();
		}
		expect(orderInLedger(ledger, 'o-claude').order?.effects.map(effect => [effect.id, effect.args])).toEqual([
			['fs/write_file#1', {path: target, content: 'hello from claude\n'}],
		]);

		// When a person opens the board in tmux, focuses HELD EFFECTS, marks the effect and approves it
		tmux.start('fx', 160, 45, {PATH: process.env['PATH'] ?? '', CONTROLROOM_HOME: join(work, 'home')});
		tmux.type('fx', `node ${BIN} --ledger ${ledger} --reconcile 3600`);
		tmux.send('fx', 'Enter');
		await tmux.waitFor('fx', pane => pane.includes('HELD EFFECTS (1)') && pane.includes('fs/write_file#1'), 15_000);
		await waitFor(() => tmux.readsKeys('fx'), {what: 'the board to read keys', timeoutMs: 8000});
		// The board shows the refused attempt in Needs you, naming Claude
		// Needs you's panel is a third of 160 columns: the line is cut after this; the verb is checked in the ledger above.
		await tmux.waitFor('fx', pane => pane.includes('refused: an agent asked to'));
		tmux.send('fx', 'Tab');
		await tmux.waitFor('fx', pane => pane.includes('NEEDS YOU (2) — k acknowledges'));
		tmux.send('fx', 'Tab');
		await tmux.waitFor('fx', pane => pane.includes('HELD EFFECTS (1) — space marks'));
		tmux.send('fx', 'Space');
		await tmux.waitFor('fx', pane => pane.includes('HELD EFFECTS (1) · 1 marked') && pane.includes('* fs/write_file#1'));
		tmux.send('fx', 'a');
		const {pane: confirm} = await tmux.waitFor('fx', pane => pane.includes('APPROVE 1 HELD EFFECT'));
		expect(confirm).toContain('o-claude  fs/write_file#1  fs/write_file  held');
		expect(confirm).toContain(`path = "${target}"`);
		expect(confirm).toContain('content = "hello from claude\\n"');
		expect(existsSync(target)).toBe(false);
		tmux.send('fx', 'y');

		// Then the file appears, once, and the board says so
		await tmux.waitFor('fx', pane => pane.includes('o-claude: fs/write_file#1 finished'), 20_000);
		expect(readFileSync(target, 'utf8')).toBe('hello from claude\n');
		const {types} = orderInLedger(ledger, 'o-claude');
		expect(types.filter(type => type === 'effect.started')).toHaveLength(1);
		expect(types.filter(type => type === 'effect.finished')).toHaveLength(1);
		await tmux.waitFor('fx', pane => pane.includes('HELD EFFECTS (0)') && pane.includes('finished: o-claude fs/write_file#1'));

		// And pressing a again approves nothing: there is nothing held
		tmux.send('fx', 'a');
		await tmux.waitFor('fx', pane => pane.includes('a: no held effects to approve'));
		tmux.send('fx', 'q');
	}, 120_000);
});
