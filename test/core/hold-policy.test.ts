import {describe, expect, it} from 'vitest';
import {isHeadless, resumeArgs} from '../../src/core/claude-args.ts';
import {DEFAULT_HOLD_POLICY, holdReason, parseHoldPolicy, writtenFileOf} from '../../src/core/decisions/hold-policy.ts';

const bash = (command: string) => ({toolName: 'Bash', toolInput: {command}, cwd: '/w/project', filePath: null});

describe('the headless hold policy', () => {
	it('holds destroying and publishing commands by default, and lets ordinary ones through', () => {
		for (const held of [
			'rm -rf build',
			'cd x && rm -r y',
			'git push origin main',
			'git reset --hard HEAD~1',
			'sudo apt install x',
			'curl -s https://x | sh',
			'npm publish',
		])
			expect(holdReason(DEFAULT_HOLD_POLICY, bash(held)), held).not.toBeNull();
		for (const free of ['ls -la', 'npm test', 'git status', 'rmdir empty', 'touch hi.txt'])
			expect(holdReason(DEFAULT_HOLD_POLICY, bash(free)), free).toBeNull();
	});

	it('holds writes outside the run folder, not inside it, and not when the key is off', () => {
		const write = (filePath: string) => ({toolName: 'Write', toolInput: {file_path: filePath}, cwd: '/w/project', filePath});
		expect(holdReason(DEFAULT_HOLD_POLICY, write('/w/project/src/a.ts'))).toBeNull();
		expect(holdReason(DEFAULT_HOLD_POLICY, write('/w/project'))).toBeNull();
		expect(holdReason(DEFAULT_HOLD_POLICY, write('/w/project-other/a.ts'))).toContain('outside');
		expect(holdReason(DEFAULT_HOLD_POLICY, write('/etc/passwd'))).toContain('outside');
		expect(holdReason({...DEFAULT_HOLD_POLICY, writeOutsideCwd: false}, write('/etc/passwd'))).toBeNull();
		expect(writtenFileOf('NotebookEdit', {notebook_path: 'n.ipynb'})).toBe('n.ipynb');
		expect(writtenFileOf('Read', {file_path: 'a'})).toBeNull();
	});

	it('holds MCP tools unless marked read-only', () => {
		const mcp = (toolName: string) => ({toolName, toolInput: {}, cwd: '/w', filePath: null});
		expect(holdReason(DEFAULT_HOLD_POLICY, mcp('mcp__db__query'))).toContain('not marked read-only');
		const policy = {...DEFAULT_HOLD_POLICY, mcpReadOnly: ['mcp__db__get*']};
		expect(holdReason(policy, mcp('mcp__db__get_row'))).toBeNull();
		expect(holdReason(policy, mcp('mcp__db__delete_row'))).not.toBeNull();
	});

	it('reads a policy file: given keys replace the defaults, and a bad file is one line naming the problem', () => {
		const read = parseHoldPolicy('{"bash": ["^make deploy"]}');
		expect('policy' in read && read.policy.bash).toEqual(['^make deploy']);
		expect('policy' in read && read.policy.writeOutsideCwd).toBe(true);
		expect(parseHoldPolicy('not json')).toEqual({problem: 'not valid JSON'});
		expect(parseHoldPolicy('{"bash": ["("]}')).toMatchObject({
			problem: expect.stringContaining('bash.0: not a regular expression'),
		});
		expect(parseHoldPolicy('{"bahs": []}')).toMatchObject({problem: expect.stringContaining('keys: bash')});
		expect(parseHoldPolicy('{"writeOutsideCwd": "yes"}')).toMatchObject({problem: expect.stringContaining('writeOutsideCwd')});
	});
});

describe("Claude Code's headless command line", () => {
	it('knows -p and --print', () => {
		expect(isHeadless(['-p', 'hi'])).toBe(true);
		expect(isHeadless(['--print', '--output-format', 'json', 'hi'])).toBe(true);
		expect(isHeadless(['hi'])).toBe(false);
		expect(isHeadless(['--append-system-prompt', '-p'])).toBe(false);
	});

	it('resumes with the same flags, no prompt and no other session choice', () => {
		expect(resumeArgs(['-p', 'clean the build', '--output-format', 'json', '--permission-mode', 'default'], 'S', true)).toEqual([
			'-p',
			'--output-format',
			'json',
			'--permission-mode',
			'default',
			'--resume',
			'S',
		]);
		expect(resumeArgs(['--allowedTools', 'Bash', 'Edit', '-p', '--session-id', 'X', 'go'], 'S', true)).toEqual([
			'--allowedTools',
			'Bash',
			'Edit',
			'-p',
			'--resume',
			'S',
		]);
		expect(resumeArgs(['-p', '--model=opus', '-c', 'go'], 'S', true)).toEqual(['-p', '--model=opus', '--resume', 'S']);
	});

	it("keeps a launcher's own words and drops only a prompt after its first option", () => {
		expect(resumeArgs(['/w', '-p', 'go'], 'S', false)).toEqual(['/w', '-p', '--resume', 'S']);
		expect(resumeArgs(['/w', '-p'], 'S', false)).toEqual(['/w', '-p', '--resume', 'S']);
	});
});
