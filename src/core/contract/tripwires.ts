// A contract's tripwires that are commands (docs/serve.md, "Tripwires"): run by pickup only when the
// repository defines them, and only in one of these exact shapes, never as a shell line: a contract
// can come from outside the machine, and a tripwire is the repository's own check, not the writer's.

const NAME = '[A-Za-z0-9][A-Za-z0-9:_.-]*';
const SHAPES: readonly {readonly pattern: RegExp; readonly argv: (match: RegExpMatchArray) => string[]}[] = [
	{pattern: new RegExp(`^npm (?:run|run-script) (${NAME})$`), argv: match => ['npm', 'run', match[1] ?? '']},
	{pattern: /^npm (test|t)$/, argv: () => ['npm', 'test']},
	{pattern: new RegExp(`^(yarn|pnpm) (?:run )?(${NAME})$`), argv: match => [match[1] ?? '', 'run', match[2] ?? '']},
	{pattern: new RegExp(`^bun run (${NAME})$`), argv: match => ['bun', 'run', match[1] ?? '']},
	{pattern: new RegExp(`^make (${NAME})$`), argv: match => ['make', match[1] ?? '']},
];

/** A tripwire line's command as argv, when it is one of the shapes a repository defines; else null (it stays prose). */
export function tripwireCommand(line: string): string[] | null {
	const text = line
		.trim()
		.replace(/^`(.*)`$/, '$1')
		.trim();
	for (const shape of SHAPES) {
		const match = text.match(shape.pattern);
		if (match) return shape.argv(match);
	}
	return null;
}
