import {describe, expect, it} from 'vitest';
import {decideActor, type ActorFacts, type AncestorFact} from '../../src/core/actor.ts';

const TERMINAL = {isTty: true, isControlling: true, isForeground: true};
const shell: AncestorFact = {pid: 900, startTime: 10, name: 'bash', argv: ['-bash']};
const tmuxServer: AncestorFact = {pid: 800, startTime: 5, name: 'tmux: server', argv: ['tmux']};

function facts(change: Partial<ActorFacts> = {}): ActorFacts {
	return {
		pid: 1000,
		user: 'dana',
		uid: 1001,
		ancestors: [shell, tmuxServer],
		markers: [],
		terminal: TERMINAL,
		taskProcesses: [],
		door: {kind: 'terminal'},
		...change,
	};
}

const claude = (pid: number, name = 'claude', argv: string[] | null = ['claude', '-p', 'go']): AncestorFact => ({
	pid,
	startTime: 20,
	name,
	argv,
});

describe('the actor rule', () => {
	it('is a person at a terminal of its own, in its foreground, with no agent above it', () => {
		expect(decideActor(facts())).toEqual({
			kind: 'person',
			user: 'dana',
			uid: 1001,
			reason: 'dana at a terminal, no agent above it',
		});
	});

	it.each([
		['an agent marker in its environment', facts({markers: ['CLAUDECODE', 'CLAUDE_PID']}), /carries CLAUDECODE, CLAUDE_PID/],
		['Claude Code above it', facts({ancestors: [shell, claude(700)]}), /process 700 \(claude\) above it is Claude Code/],
		['Codex above it, by argv', facts({ancestors: [claude(701, 'node', ['node', '/usr/lib/codex/bin/codex.js'])]}), /Codex/],
		['a platform build of Codex', facts({ancestors: [claude(702, 'codex-x86_64-un', null)]}), /Codex/],
		[
			"a task's recorded process above it",
			facts({taskProcesses: [{taskId: 'w-1', pid: 900}]}),
			/process 900 above it is the process of task w-1/,
		],
		['itself a task', facts({taskProcesses: [{taskId: 'w-2', pid: 1000}]}), /it is the process of task w-2/],
		[
			'no terminal (a pipe, /dev/null)',
			facts({terminal: {isTty: false, isControlling: false, isForeground: false}}),
			/not a terminal/,
		],
		[
			'a terminal opened by path, not its own (setsid, then </proc/PID/fd/0)',
			facts({terminal: {isTty: true, isControlling: false, isForeground: false}}),
			/not its own controlling terminal/,
		],
		[
			'in the background of its terminal',
			facts({terminal: {isTty: true, isControlling: true, isForeground: false}}),
			/not in the foreground/,
		],
	])('is an agent with %s', (_name, given, reason) => {
		const actor = decideActor(given);
		expect(actor.kind).toBe('agent');
		expect(actor.reason).toMatch(reason);
	});

	it('names the agent found: its PID, name and task', () => {
		expect(decideActor(facts({ancestors: [shell, claude(700)]}))).toMatchObject({
			agent: {pid: 700, name: 'claude', taskId: null},
		});
		expect(decideActor(facts({taskProcesses: [{taskId: 'w-1', pid: 900}]}))).toMatchObject({
			agent: {pid: 900, name: 'bash', taskId: 'w-1'},
		});
	});

	it('does not take a name that only contains an agent’s for one (claudette, my-codex-notes)', () => {
		expect(decideActor(facts({ancestors: [claude(700, 'claudette', ['claudette'])]})).kind).toBe('person');
		expect(decideActor(facts({ancestors: [claude(700, 'vim', ['vim', 'my-codex-notes.md'])]})).kind).toBe('person');
	});

	it('through the fleet: a person when the fleet board found one, and the host itself runs no agent', () => {
		const door = (isPerson: boolean | null) =>
			({
				kind: 'fleet',
				requestId: 7,
				requestedBy: 'board@desk',
				asker:
					isPerson === null
						? null
						: {isPerson, user: isPerson ? 'lee' : null, reason: isPerson ? 'lee at a terminal' : 'its stdin is not a terminal'},
			}) as const;
		const noTerminal = {isTty: false, isControlling: false, isForeground: false};
		expect(decideActor(facts({door: door(true), terminal: noTerminal}))).toMatchObject({kind: 'person', user: 'lee'});
		expect(decideActor(facts({door: door(false), terminal: noTerminal})).reason).toContain('its stdin is not a terminal');
		expect(decideActor(facts({door: door(null), terminal: noTerminal})).reason).toContain('does not say that a person asked');
		// The sync itself under an agent is an agent, whatever the request says
		expect(decideActor(facts({door: door(true), markers: ['CODEX_THREAD_ID']})).kind).toBe('agent');
	});
});
