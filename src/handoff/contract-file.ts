import {extname} from 'node:path';
import {isScalar, LineCounter, parseDocument, visit} from 'yaml';
import {AgentFileError, readAgentText} from '../ledger/agent-files.ts';

/** A contract file that cannot be read as YAML or Markdown at all; the message never quotes the file. */
export class ContractParseError extends Error {}

/**
 * The largest contract read (docs/contracts.md, "Limits"): a contract is a page or a few of
 * prose and lists; a file larger than this is refused before a byte of it is read.
 */
export const MAX_CONTRACT_BYTES = 1024 * 1024;
/** Aliases a YAML document may expand (the yaml package's own default): more is an alias bomb. */
const MAX_ALIASES = 100;

export type ContractDocument = {readonly format: 'yaml' | 'markdown'; readonly document: unknown};

/** text: the body as is; list: bullet items; map: YAML, `- key: value` bullets merged; yaml: YAML as is. */
type SectionShape = 'text' | 'list' | 'map' | 'yaml';
/**
 * Markdown headings and the field each fills (docs/contracts.md, "Two forms, one model"). Headings
 * are matched case-insensitively.
 */
const SECTIONS: Readonly<Record<string, {readonly path: readonly string[]; readonly shape: SectionShape}>> = {
	goal: {path: ['goal'], shape: 'text'},
	problem: {path: ['problem'], shape: 'text'},
	expected: {path: ['expected'], shape: 'text'},
	'what made it hard to see': {path: ['hard_to_see'], shape: 'text'},
	'hard to see': {path: ['hard_to_see'], shape: 'text'},
	'solution shape': {path: ['solution_shape'], shape: 'text'},
	context: {path: ['context'], shape: 'map'},
	scope: {path: ['scope', 'allowed'], shape: 'list'},
	'in scope': {path: ['scope', 'allowed'], shape: 'list'},
	'out of scope': {path: ['scope', 'excluded'], shape: 'list'},
	execution: {path: ['execution'], shape: 'map'},
	acceptance: {path: ['acceptance', 'checks'], shape: 'list'},
	acceptors: {path: ['acceptance', 'acceptors'], shape: 'map'},
	'stop when': {path: ['stop_when'], shape: 'list'},
	delivery: {path: ['delivery'], shape: 'map'},
	reproduce: {path: ['reproduce'], shape: 'list'},
	steps: {path: ['steps'], shape: 'list'},
	decisions: {path: ['decisions'], shape: 'yaml'},
	verification: {path: ['verification'], shape: 'list'},
	gotchas: {path: ['gotchas'], shape: 'list'},
	'environment specific': {path: ['environment_specific'], shape: 'map'},
	authority: {path: ['authority'], shape: 'map'},
	evidence: {path: ['evidence'], shape: 'yaml'},
	guardrails: {path: ['guardrails'], shape: 'map'},
	trace: {path: ['trace'], shape: 'map'},
	escalation: {path: ['escalation'], shape: 'map'},
};

/**
 * Keys whose values are revisions: a short hash can be all digits (`base_revision: 5333014`) or
 * look like a float (`12e4567`), which YAML would read as a number and mangle. They are kept as
 * the text written.
 */
const REVISION_KEYS = new Set(['base_revision', 'patch_revision', 'commit', 'revision']);

/** Parses YAML, reporting only the position of an error: the parser's excerpt could show a secret. */
export function parseYaml(source: string, where: string, lineOffset = 0): unknown {
	try {
		return parseYamlUnguarded(source, where, lineOffset);
	} catch (error) {
		if (error instanceof ContractParseError) throw error;
		// What the parser throws rather than reports: too many aliases (an alias bomb), nesting
		// deeper than the stack. Said in one line; the parser's message could quote the file.
		if (error instanceof ReferenceError && /alias/i.test(error.message))
			throw new ContractParseError(`${where}: more than ${MAX_ALIASES} YAML aliases (an alias bomb?)`);
		if (error instanceof RangeError) throw new ContractParseError(`${where}: nested too deeply to read`);
		throw new ContractParseError(`${where}: not valid YAML`);
	}
}

function parseYamlUnguarded(source: string, where: string, lineOffset: number): unknown {
	const lineCounter = new LineCounter();
	const parsed = parseDocument(source, {prettyErrors: false, uniqueKeys: true, lineCounter});
	const error = parsed.errors[0];
	if (error) {
		const line = lineCounter.linePos(error.pos[0]).line + lineOffset;
		throw new ContractParseError(`${where}: not valid YAML (${error.code}) at line ${line}`);
	}
	visit(parsed, {
		Pair(_, pair) {
			const {key, value} = pair;
			if (!isScalar(key) || !isScalar(value) || !REVISION_KEYS.has(String(key.value))) return;
			if (typeof value.value === 'number' && value.source !== undefined && value.type === 'PLAIN') value.value = value.source;
		},
	});
	return parsed.toJS({maxAliasCount: MAX_ALIASES});
}

function bulletItems(body: string): string[] {
	const items: string[] = [];
	for (const line of body.split('\n')) {
		const bullet = line.match(/^\s*(?:[-*+]|\d+[.)])\s+(.*)$/);
		if (bullet) items.push(bullet[1] ?? '');
		else if (line.trim() !== '' && items.length > 0 && /^\s+/.test(line)) items[items.length - 1] += ` ${line.trim()}`;
		else if (line.trim() !== '') items.push(line.trim());
	}
	return items.map(item => item.trim()).filter(item => item !== '');
}

/** `- key: value` bullets become a mapping; anything else is read as YAML. */
function sectionMap(body: string, where: string, lineOffset: number): unknown {
	const parsed = parseYaml(body, where, lineOffset);
	const isPairList =
		Array.isArray(parsed) &&
		parsed.length > 0 &&
		parsed.every(item => item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 1);
	return isPairList ? Object.assign({}, ...(parsed as object[])) : parsed;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
	let node = target;
	for (const key of path.slice(0, -1)) {
		const next = node[key];
		if (next === null || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
		node = node[key] as Record<string, unknown>;
	}
	const last = path.at(-1) as string;
	const existing = node[last];
	const bothMaps = [existing, value].every(item => item !== null && typeof item === 'object' && !Array.isArray(item));
	node[last] = bothMaps ? {...(existing as object), ...(value as object)} : value;
}

/** Reads a Markdown contract: YAML front matter, then `## Section` bodies filling the same fields. */
export function parseMarkdownContract(source: string): Record<string, unknown> {
	const lines = source.replace(/\r\n/g, '\n').split('\n');
	let start = 0;
	let document: Record<string, unknown> = {};
	if (lines[0]?.trim() === '---') {
		const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
		if (end < 0) throw new ContractParseError('front matter: no closing --- line');
		const front = parseYaml(lines.slice(1, end).join('\n'), 'front matter', 1);
		if (front !== null && front !== undefined && (typeof front !== 'object' || Array.isArray(front))) {
			throw new ContractParseError('front matter: expected a mapping of fields');
		}
		document = {...(front as Record<string, unknown> | null)};
		start = end + 1;
	}
	let heading: {title: string; line: number} | null = null;
	let body: string[] = [];
	const flush = () => {
		if (heading === null) return;
		const name = heading.title
			.toLowerCase()
			.replace(/[^a-z0-9 ]+/g, ' ')
			.replace(/\s+/g, ' ')
			.trim();
		const text = body.join('\n').trim();
		const section = SECTIONS[name];
		const where = `section "${heading.title}"`;
		if (section === undefined) setPath(document, ['sections', heading.title], text);
		else if (section.shape === 'text') setPath(document, section.path, text);
		else if (section.shape === 'list') setPath(document, section.path, bulletItems(text));
		else if (section.shape === 'map') setPath(document, section.path, sectionMap(text, where, heading.line));
		else setPath(document, section.path, parseYaml(text, where, heading.line));
	};
	lines.slice(start).forEach((line, index) => {
		const match = line.match(/^##\s+(.+?)\s*#*\s*$/);
		if (match) {
			flush();
			heading = {title: match[1] ?? '', line: start + index + 1};
			body = [];
		} else body.push(line);
	});
	flush();
	return document;
}

/** A contract's text in either form, chosen by the file's extension (`.md`, `.markdown`; anything else is YAML). */
export function parseContractSource(source: string, file: string): ContractDocument {
	const extension = extname(file).toLowerCase();
	if (extension === '.md' || extension === '.markdown') return {format: 'markdown', document: parseMarkdownContract(source)};
	return {format: 'yaml', document: parseYaml(source, file)};
}

/**
 * Reads a text file an agent may have written (a contract, its evidence): through agent-files.ts,
 * so a link is not followed, a FIFO or device is never waited on, a file over `maxBytes` is
 * refused unread, and anything but UTF-8 is refused (never guessed). One line naming the file.
 */
export function readContractText(file: string, maxBytes: number = MAX_CONTRACT_BYTES): string {
	try {
		return readAgentText(file, maxBytes);
	} catch (error) {
		if (error instanceof AgentFileError) throw new ContractParseError(error.message);
		throw error;
	}
}

/** Reads a contract file in either form; `source` is the text read, which a snapshot keeps. */
export function readContractFile(file: string): ContractDocument & {readonly source: string} {
	const source = readContractText(file);
	return {...parseContractSource(source, file), source};
}
