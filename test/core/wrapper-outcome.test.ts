import {describe, expect, it} from 'vitest';
import {signalExitCode, signalOfShellStatus, wrapperOutcome, type ChildEnding} from '../../src/core/wrapper-outcome.ts';

const ending = (patch: Partial<ChildEnding>): ChildEnding => ({
	spawnError: null,
	exitCode: null,
	signal: null,
	receivedSignal: null,
	stopRequested: null,
	overBudget: false,
	...patch,
});

describe('wrapperOutcome', () => {
	it("returns the child's own exit code", () => {
		expect(wrapperOutcome(ending({exitCode: 0}))).toEqual({kind: 'exited', exitCode: 0});
		expect(wrapperOutcome(ending({exitCode: 3}))).toEqual({kind: 'exited', exitCode: 3});
	});

	it('returns 127 with the error when the child could not be spawned', () => {
		expect(wrapperOutcome(ending({spawnError: 'spawn /x ENOENT'}))).toEqual({
			kind: 'failed-to-spawn',
			exitCode: 127,
			error: 'spawn /x ENOENT',
		});
	});

	it('returns 125 when the run went over budget, whatever the child did after the stop', () => {
		expect(wrapperOutcome(ending({overBudget: true, signal: 'SIGTERM'}))).toEqual({
			kind: 'over-budget',
			exitCode: 125,
			signal: 'SIGTERM',
		});
		expect(wrapperOutcome(ending({overBudget: true, exitCode: 0}))).toMatchObject({exitCode: 125});
	});

	it('returns 128+N when stopped by signal N', () => {
		expect(wrapperOutcome(ending({signal: 'SIGKILL'}))).toMatchObject({kind: 'stopped', exitCode: 137, signal: 'SIGKILL'});
		expect(wrapperOutcome(ending({receivedSignal: 'SIGTERM', signal: 'SIGTERM'}))).toMatchObject({
			kind: 'stopped',
			exitCode: 143,
		});
		expect(signalExitCode('SIGINT')).toBe(130);
		expect(signalExitCode('SIGHUP')).toBe(129);
	});

	it('counts a stop the wrapper received even when the child exits cleanly after it', () => {
		expect(wrapperOutcome(ending({receivedSignal: 'SIGHUP', exitCode: 0}))).toEqual({
			kind: 'stopped',
			exitCode: 129,
			signal: 'SIGHUP',
			reason: 'wrapper received SIGHUP',
		});
		expect(wrapperOutcome(ending({stopRequested: 'SIGTERM', signal: 'SIGKILL'}))).toEqual({
			kind: 'stopped',
			exitCode: 137,
			signal: 'SIGKILL',
			reason: 'stop requested (controlroom stop)',
		});
	});
});

describe('a shell exit status that reports a signal', () => {
	it('names the signal for 128+N and nothing else', () => {
		expect(signalOfShellStatus(143)).toBe('SIGTERM');
		expect(signalOfShellStatus(137)).toBe('SIGKILL');
		expect(signalOfShellStatus(130)).toBe('SIGINT');
		for (const status of [null, 0, 1, 2, 127, 128, 200, 255]) expect(signalOfShellStatus(status)).toBeNull();
	});
});
