import {readFileSync} from 'node:fs';
import {parse} from 'yaml';
import {z} from 'zod';
import {checkPosition, type Position, type PositionProblem} from '../core/mediation/position.ts';

const unit = z.number().min(0).max(1);

/** A position file (YAML), as docs/mediation.md describes it. */
const positionSchema = z.strictObject({
	agent: z.string().min(1),
	utilities: z.record(z.string().min(1), z.record(z.string().min(1), unit)),
	weights: z.record(z.string().min(1), unit),
	floor: unit,
	never: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
});

/** A position file that cannot be used: one line per problem, naming the file and field, never a value. */
export class PositionFileError extends Error {}

const fieldOf = (path: readonly PropertyKey[]): string => (path.length === 0 ? 'file' : path.map(String).join('.'));

/** Reads and validates one agent's position file. */
export function readPositionFile(file: string): Position {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		throw new PositionFileError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
	}
	let document: unknown;
	try {
		document = parse(text);
	} catch {
		throw new PositionFileError(`${file}: not valid YAML`);
	}
	const parsed = positionSchema.safeParse(document);
	if (!parsed.success) {
		// zod's messages name the expectation (a number, at most 1), never the value found.
		const lines = parsed.error.issues.map(issue => `${file}: ${fieldOf(issue.path)}: ${issue.message}`);
		throw new PositionFileError(lines.join('\n'));
	}
	const problems = checkPosition(parsed.data);
	if (problems.length > 0) throw new PositionFileError(problems.map(problem => describe(file, problem)).join('\n'));
	return parsed.data;
}

/** A problem that spans files, or one file's, as one line. */
export function describe(where: string, problem: PositionProblem): string {
	return `${where}: ${problem.field}: ${problem.message}`;
}
