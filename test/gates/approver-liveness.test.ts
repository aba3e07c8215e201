import {spawn} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {afterEach, describe, expect, it} from 'vitest';
import {isApproverAlive, thisApprover} from '../../src/gates/effects/liveness.ts';
import {waitFor} from './../helpers/wait-for.ts';

const stateOf = (pid: number): string | null => {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
	} catch {
		return null;
	}
};

const holders: (() => void)[] = [];
afterEach(() => holders.splice(0).forEach(release => release()));

describe("an effect's approver", () => {
	it('is alive while its process runs, and gone once it has exited, even before its parent reaps it', async () => {
		expect(isApproverAlive(thisApprover())).toBe(true);
		// Given a process that exited and whose parent never reaps it (a zombie: it held the order's
		// lock, which the kernel released at its exit, so the next approval may already hold it)
		const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 600'], {stdio: ['ignore', 'pipe', 'ignore']});
		holders.push(() => parent.kill('SIGKILL'));
		const pid = await new Promise<number>(resolve => parent.stdout.once('data', chunk => resolve(Number(String(chunk).trim()))));
		await waitFor(() => stateOf(pid) === 'Z', {what: 'the child to exit unreaped'});
		// Then it is not alive, whatever its start time says
		expect(isApproverAlive({pid, startTime: null})).toBe(false);
		// And a PID that is not there is not alive either
		expect(isApproverAlive({pid: 2 ** 22 + 1, startTime: null})).toBe(false);
	});
});
