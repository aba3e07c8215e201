import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {FS_SERVER, orderInLedger, writeOrder} from '../helpers/effects.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';

// A real Claude Code worker behind the gateway hands a staged write to a sub-agent (its Agent
// tool). The sub-agent's call reaches the same gateway; Claude Code names the call in the MCP
// request, and the worker's own PreToolUse hook recorded that call with the sub-agent's agent_id:
// the gateway refuses it, naming the sub-agent. The worker's own staged call is held as ever.
describe('a staged tool called from inside a real Claude sub-agent', () => {
	it('is refused, naming the sub-agent, while the worker’s own call is held', () => {
		const work = scratchDir('cr-subagent-');
		const home = join(work, 'cr');
		const srv = join(work, 'srv');
		mkdirSync(srv);
		mkdirSync(home);
		const ledger = freshLedgerFile(home);
		const env = {...process.env, ...requireRealClients(), CONTROLROOM_HOME: home};
		// The worker's hooks (the spool hook) go where claude-offline.sh's Claude reads them
		const install = runCli(['hooks', 'install', '--claude'], {
			env: {...env, HOME: join(work, 'another-home'), CLAUDE_CONFIG_DIR: join(work, 'home', '.claude')},
		});
		expect(install.status, install.stderr).toBe(0);
		const order = writeOrder(
			work,
			`order: o-sub
worker: claude-worker
budget: {calls: 10}
upstreams:
  fs:
    command: ${process.execPath}
    args: [${FS_SERVER}, ${srv}]
    allow: [read_text_file, write_file]
`,
		);
		const mcpConfig = join(work, 'mcp.json');
		writeFileSync(
			mcpConfig,
			JSON.stringify({
				mcpServers: {gw: {command: process.execPath, args: [BIN, 'gateway', '--order', order, '--ledger', ledger]}},
			}),
		);
		const script = join(work, 'script.json');
		writeFileSync(
			script,
			JSON.stringify({
				main: [
					{tool: 'mcp__gw__fs__write_file', input: {path: join(srv, 'worker.txt'), content: 'from the worker\n'}},
					{
						tool: 'Agent',
						input: {description: 'write it', prompt: 'SUBAGENT-WRITES: write sub.txt', subagent_type: 'general-purpose'},
					},
					{text: 'done'},
				],
				sub: {
					'SUBAGENT-WRITES': [
						{tool: 'mcp__gw__fs__write_file', input: {path: join(srv, 'sub.txt'), content: 'from the sub-agent\n'}},
						{text: 'the write was refused'},
					],
				},
			}),
		);
		const fakeLog = join(work, 'fake.jsonl');
		const run = spawnSync(
			realClientScript('claude-offline.sh'),
			[work, '-p', 'write both files', '--mcp-config', mcpConfig, '--dangerously-skip-permissions'],
			{env: {...env, SCENARIO: 'script', SCRIPT_FILE: script, ENABLE_TOOL_SEARCH: 'false', FAKE_LOG: fakeLog}, encoding: 'utf8'},
		);
		expect(run.status, run.stderr).toBe(0);

		// The worker's call is held, recorded with the call's id and the session that made it
		const {order: record, types} = orderInLedger(ledger, 'o-sub');
		expect(record?.effects.map(effect => [effect.id, effect.kind])).toEqual([['fs/write_file#1', 'staged']]);
		// The sub-agent's call was refused, naming it
		expect(types.filter(type => type === 'effect.refused')).toHaveLength(1);
		// ... and the sub-agent read why, in its own conversation with the model
		const refusedText = readFileSync(fakeLog, 'utf8');
		expect(refusedText).toContain('refused: fs/write_file is staged in o-sub');
		expect(refusedText).toMatch(/a sub-agent \(general-purpose \w+\) cannot ask for writes/);
		const open = openLedger(ledger);
		const events = open.reader.eventsOf('o-sub');
		open.close();
		const refusal = events.find(event => event.type === 'effect.refused');
		expect(refusal?.data).toMatchObject({
			tool: 'write_file',
			upstream: 'fs',
			agentType: 'general-purpose',
			agentId: expect.stringMatching(/^\w+$/),
			toolUseId: expect.stringMatching(/^toolu_/),
		});
		const held = events.find(event => event.type === 'effect.held');
		expect(held?.data).toMatchObject({toolUseId: expect.stringMatching(/^toolu_/), session: expect.stringMatching(/^c-/)});
		// Nothing was written
		expect(existsSync(join(srv, 'worker.txt'))).toBe(false);
		expect(existsSync(join(srv, 'sub.txt'))).toBe(false);
	}, 120_000);
});
