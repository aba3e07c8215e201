import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {guessAgent} from '../../src/producers/agent-kind.ts';
import {createOutputReader} from '../../src/producers/agent-output.ts';

const fixture = readFileSync(new URL('../fixtures/codex/exec-todo-list.jsonl', import.meta.url), 'utf8')
	.split('\n')
	.filter(Boolean);

describe('createOutputReader', () => {
	it('reads a real Codex exec --json stream: todo_list progress, one usage delta, finished items', () => {
		const read = createOutputReader({agent: 'codex'});
		const findings = fixture.flatMap(line => read(line));
		const progress = findings.filter(finding => finding.kind === 'event' && finding.event.type === EventType.progressed);
		expect(progress.map(finding => finding.kind === 'event' && finding.event.data)).toEqual([
			{done: 0, total: 2, from: 'todo_list'},
			{done: 2, total: 2, from: 'todo_list'},
			{done: 2, total: 2, from: 'todo_list'},
		]);
		const tokens = findings.filter(finding => finding.kind === 'tokens');
		expect(tokens).toHaveLength(1);
		expect(tokens[0]).toMatchObject({input: 8000, output: 240});
	});

	it('seeds a resumed thread from the usage recorded before', () => {
		const read = createOutputReader({
			agent: 'codex',
			previousThreadUsage: id => (id === 't' ? {input: 1000, output: 10} : undefined),
		});
		read('{"type":"thread.started","thread_id":"t"}');
		expect(read('{"type":"turn.completed","usage":{"input_tokens":1500,"output_tokens":30}}')).toMatchObject([
			{kind: 'tokens', input: 500, output: 20},
		]);
	});

	it('reads PROGRESS lines from any agent, and Codex JSON only from a Codex agent', () => {
		expect(createOutputReader({agent: 'generic'})('PROGRESS 3/7')).toMatchObject([
			{kind: 'event', event: {data: {done: 3, total: 7}}},
		]);
		expect(
			createOutputReader({agent: 'generic'})('{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'),
		).toEqual([]);
		expect(createOutputReader({agent: 'codex'})('{"type": 5}')).toMatchObject([
			{kind: 'reject', reason: 'codex line: type: expected a string'},
		]);
	});

	it('guesses the agent from the command name', () => {
		expect(guessAgent('/usr/local/bin/codex')).toBe('codex');
		expect(guessAgent('claude')).toBe('claude');
		expect(guessAgent('sh')).toBe('generic');
	});
});
