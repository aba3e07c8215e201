import {execFileSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {scratchDir} from './cli.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/contracts/', import.meta.url));

/** A real git repository with an npm `test` script and a Makefile `check` target, for contracts to point at. */
export type ContractRepo = {
	readonly dir: string;
	/** The commit the repository was made with. */
	readonly head: string;
	/** Copies a fixture contract into the repository, its BASE_REVISION replaced by `head`; returns its path. */
	place(fixture: string, name?: string): string;
	/** Writes a file into the repository; returns its path. */
	write(name: string, text: string): string;
};

function git(dir: string, ...args: string[]): string {
	return execFileSync('git', ['-C', dir, ...args], {encoding: 'utf8'}).trim();
}

/** Makes a repository with `git init` and one commit. */
export function makeContractRepo(): ContractRepo {
	const dir = scratchDir('cr-repo-');
	git(dir, 'init', '-q');
	writeFileSync(join(dir, 'package.json'), JSON.stringify({name: 'fixture', scripts: {test: 'node -e 0', build: 'node -e 0'}}));
	writeFileSync(join(dir, 'Makefile'), 'check: build\n\ttrue\n\nbuild:\n\ttrue\n');
	git(dir, 'add', '.');
	git(dir, '-c', 'user.email=test@example.com', '-c', 'user.name=test', 'commit', '-qm', 'fixture');
	const head = git(dir, 'rev-parse', 'HEAD');
	const write = (name: string, text: string) => {
		const file = join(dir, name);
		writeFileSync(file, text);
		return file;
	};
	return {
		dir,
		head,
		write,
		place: (fixture, name = fixture) =>
			write(name, readFileSync(join(FIXTURES, fixture), 'utf8').replaceAll('BASE_REVISION', head)),
	};
}

/** Evidence that answers every acceptance line of valid-task.yaml, as a hand-in takes it. */
export const COMPLETE_EVIDENCE = `before: {command: npm test, exit_code: 1, output: "1 failed", base_revision: abc1234}
change: [{file: src/export.ts, reason: apply the filter to the export query}]
after:
  - {check: 1, command: "npm test -- export", exit_code: 0, output: "12 passed"}
  - {check: 2, command: make check, exit_code: 0, output: ""}
uncertainty: []
review: {commit: 9a8b7c6, acceptor: lee}
`;
