import * as z from 'zod/mini';
import {globRegExp} from '../path-glob.ts';

/**
 * The headless hold policy: which of a wrapped `claude -p` run's tool calls are deferred to a
 * person instead of run (docs/headless-holds.md). Pure: the caller resolves paths
 * (symlinks included) before asking.
 */
export type HoldPolicy = {
	/** Regular expressions (JavaScript syntax); a Bash command matching any of them is held. */
	readonly bash: readonly string[];
	/** Hold Write, Edit, MultiEdit and NotebookEdit calls whose file is outside the run's folder. */
	readonly writeOutsideCwd: boolean;
	/** MCP tools (`mcp__SERVER__TOOL`, `*` matches any run of characters) that only read; every other MCP tool is held. */
	readonly mcpReadOnly: readonly string[];
	/**
	 * A contract's `authority.needs_reapproval` (docs/contracts.md): paths and globs whose writes are
	 * held, commands (their words in order) and tool names whose calls are held.
	 */
	readonly needsReapproval: readonly string[];
};

/**
 * The built-in policy: commands that destroy or publish, writes outside the run's folder, and
 * every MCP tool (a headless run has no one to ask, and a tool's own read-only hint never reaches
 * the hook, so only the person can mark one read-only).
 */
export const DEFAULT_HOLD_POLICY: HoldPolicy = {
	bash: [
		String.raw`(^|[\s;&|(])rm\s+(-[^\s]*[rRf]|--recursive|--force)`,
		String.raw`\bgit\s+(push|reset\s+--hard|clean\s+-[^\s]*f|branch\s+-D|checkout\s+--\s)`,
		String.raw`(^|[\s;&|(])sudo\s`,
		String.raw`(^|[\s;&|(])(mkfs|dd\s|shred\s)`,
		String.raw`\b(chmod|chown)\s+-[^\s]*R`,
		String.raw`\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b`,
		String.raw`\b(npm|pnpm|yarn|cargo|twine)\s+publish\b`,
		String.raw`\b(kubectl\s+delete|terraform\s+(apply|destroy))\b`,
	],
	writeOutsideCwd: true,
	mcpReadOnly: [],
	needsReapproval: [],
};

/** The tools that write one file, and the input field naming it. */
const FILE_WRITERS: Readonly<Record<string, string>> = {
	Write: 'file_path',
	Edit: 'file_path',
	MultiEdit: 'file_path',
	NotebookEdit: 'notebook_path',
};

const policyFileSchema = z.strictObject({
	bash: z.optional(z.array(z.string())),
	writeOutsideCwd: z.optional(z.boolean()),
	mcpReadOnly: z.optional(z.array(z.string())),
	needsReapproval: z.optional(z.array(z.string())),
});

/** A policy file's text read into a policy: each key given replaces the default's; a problem is one line. */
export function parseHoldPolicy(text: string): {readonly policy: HoldPolicy} | {readonly problem: string} {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return {problem: 'not valid JSON'};
	}
	const parsed = policyFileSchema.safeParse(value);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'the file';
		return {problem: `${where}: ${issue?.message ?? 'not a policy'} (keys: bash, writeOutsideCwd, mcpReadOnly, needsReapproval)`};
	}
	for (const [index, pattern] of (parsed.data.bash ?? []).entries()) {
		try {
			new RegExp(pattern);
		} catch (error) {
			return {problem: `bash.${index}: not a regular expression (${(error as Error).message})`};
		}
	}
	return {
		policy: {
			bash: parsed.data.bash ?? DEFAULT_HOLD_POLICY.bash,
			writeOutsideCwd: parsed.data.writeOutsideCwd ?? DEFAULT_HOLD_POLICY.writeOutsideCwd,
			mcpReadOnly: parsed.data.mcpReadOnly ?? DEFAULT_HOLD_POLICY.mcpReadOnly,
			needsReapproval: parsed.data.needsReapproval ?? DEFAULT_HOLD_POLICY.needsReapproval,
		},
	};
}

/** One tool call as the policy sees it; `filePath` is the written file, resolved to an absolute real path. */
export type HeldCall = {
	readonly toolName: string;
	readonly toolInput: Readonly<Record<string, unknown>>;
	/** The run's folder, absolute and real. */
	readonly cwd: string;
	readonly filePath: string | null;
};

/** The words of a command line, as a shell would split it roughly: enough to find a path in it. */
const commandWords = (command: string): string[] =>
	command
		.split(/[\s;&|()<>'"`]+/)
		.map(word => word.replace(/^\.\//, ''))
		.filter(Boolean);

/** An entry of needs_reapproval that names files (as a contract's scope does: a slash, a star or a dot, no spaces). */
const isPathEntry = (entry: string): boolean => !/\s/.test(entry.trim()) && /[/*.?]/.test(entry) && !entry.startsWith('mcp__');

/** Why a contract's needs_reapproval holds the call, or null (docs/contracts.md, "needs_reapproval"). */
function reapprovalReason(entries: readonly string[], call: HeldCall): string | null {
	const said = (entry: string) => `the contract says it needs re-approval (authority.needs_reapproval: ${entry})`;
	const command = call.toolName === 'Bash' && typeof call.toolInput['command'] === 'string' ? call.toolInput['command'] : null;
	const written = call.filePath !== null && call.toolName in FILE_WRITERS ? relativeTo(call.filePath, call.cwd) : null;
	for (const raw of entries) {
		const entry = raw
			.trim()
			.replace(/^`([^`]*)`$/, '$1')
			.trim();
		if (entry === '') continue;
		if (
			entry === call.toolName ||
			(entry.includes('*') && call.toolName.startsWith('mcp__') && globMatches(entry, call.toolName))
		)
			return said(entry);
		if (isPathEntry(entry)) {
			const pattern = globRegExp(entry);
			if (written !== null && pattern.test(written)) return `it writes ${written}: ${said(entry)}`;
			if (command !== null && commandWords(command).some(word => pattern.test(word)))
				return `the command touches ${entry}: ${said(entry)}`;
		} else if (command !== null) {
			const words = entry.split(/\s+/).map(word => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
			if (new RegExp(`(^|[^\\w-])${words.join('\\s+')}($|[^\\w-])`, 'i').test(command))
				return `the command runs ${entry}: ${said(entry)}`;
		}
	}
	return null;
}

/** Why a call is held, or null when the policy lets it through to the agent's own permissions. */
export function holdReason(policy: HoldPolicy, call: HeldCall): string | null {
	const reapproval = reapprovalReason(policy.needsReapproval ?? [], call);
	if (reapproval !== null) return reapproval;
	if (call.toolName === 'Bash') {
		const command = call.toolInput['command'];
		if (typeof command !== 'string') return null;
		const pattern = policy.bash.find(source => new RegExp(source).test(command));
		return pattern === undefined ? null : `the command matches the hold pattern ${pattern}`;
	}
	if (call.toolName in FILE_WRITERS) {
		if (!policy.writeOutsideCwd || call.filePath === null) return null;
		return isInside(call.filePath, call.cwd) ? null : `it writes ${call.filePath}, outside the run's folder ${call.cwd}`;
	}
	if (call.toolName.startsWith('mcp__')) {
		return policy.mcpReadOnly.some(glob => globMatches(glob, call.toolName))
			? null
			: `the MCP tool ${call.toolName} is not marked read-only (mcpReadOnly)`;
	}
	return null;
}

/** The input field naming the file a tool writes, for the tools that write one. */
export function writtenFileOf(toolName: string, toolInput: Readonly<Record<string, unknown>>): string | null {
	const field = FILE_WRITERS[toolName];
	const value = field === undefined ? undefined : toolInput[field];
	return typeof value === 'string' && value.length > 0 ? value : null;
}

/** Whether an absolute, normalised path is the folder or below it. */
function isInside(path: string, folder: string): boolean {
	const base = folder.endsWith('/') ? folder : `${folder}/`;
	return path === folder || path.startsWith(base);
}

function globMatches(glob: string, name: string): boolean {
	const source = glob.split('*').map(part => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
	return new RegExp(`^${source.join('.*')}$`).test(name);
}

/** A path relative to a folder when it is inside it, else the path as it is. */
function relativeTo(path: string, folder: string): string {
	const base = folder.endsWith('/') ? folder : `${folder}/`;
	return path.startsWith(base) ? path.slice(base.length) : path;
}
