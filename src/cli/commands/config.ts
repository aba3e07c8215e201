import type {ResolvedSetting} from '../../core/config.ts';
import {envOf, SETTINGS, settingInFile, type SettingKey} from '../../core/settings.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {parseCommandArgs} from '../args.ts';
import {configPath, effectiveSettings} from '../config-file.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {nearestName} from '../../core/did-you-mean.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['config [show] [--json]', 'config show KEY [--json]', 'config path'],
	description: `Shows the config file's path, every setting's value and where it came from: a CONTROLROOM_*
variable, the file, or the built-in default. A command's own flag wins over all three when given.
The file is $XDG_CONFIG_HOME/controlroom/config.json (~/.config/controlroom/config.json), or
$CONTROLROOM_CONFIG; no file is fine. show KEY shows that one setting (completion offers the keys). path prints only the path, for an editor. The keys, the order
and examples: docs/config.md.`,
	options: [['--json', 'show: {version: 1, path, exists, settings: [{key, value, source, origin, env, usedBy, about}]}']],
	exits: [
		['0', 'shown'],
		['64', 'bad command line, or a KEY no setting has (the line suggests the nearest)'],
		['78', 'the config file or a CONTROLROOM_* variable is wrong: the line names it, the field and what is wrong'],
	],
	examples: [
		['controlroom config', 'what each setting is now, and whether it came from the file'],
		['controlroom config show stallSeconds', 'one setting, and where its value came from'],
		['"$EDITOR" "$(controlroom config path)"', 'edit the file'],
		['CONTROLROOM_CONFIG=./ci-config.json controlroom config', 'check another file before using it'],
	],
	choices: {KEY: Object.keys(SETTINGS)},
	hasNoLedger: true,
};

type Row = {readonly key: SettingKey; readonly resolved: ResolvedSetting<SettingKey>};

function fromLabel(resolved: ResolvedSetting<SettingKey>): string {
	if (resolved.source === 'environment') return resolved.origin ?? 'environment';
	return resolved.source;
}

function valueText(row: Row): string {
	return JSON.stringify(settingInFile(SETTINGS[row.key].kind, row.resolved.value));
}

function table(path: string, rows: readonly Row[], exists: boolean): string {
	const cells = rows.map(row => [row.key, valueText(row), fromLabel(row.resolved), SETTINGS[row.key].usedBy.join(', ')]);
	const headings = ['setting', 'value', 'from'];
	const widths = [0, 1, 2].map(column =>
		Math.max((headings[column] ?? '').length, ...cells.map(cell => cell[column]?.length ?? 0)),
	);
	const lines = cells.map(cell => cell.map((text, column) => (column < 3 ? text.padEnd(widths[column] ?? 0) : text)).join('  '));
	return [
		`config file: ${path} (${exists ? 'read' : 'none there: nothing comes from a file'})`,
		'',
		['setting'.padEnd(widths[0] ?? 0), 'value'.padEnd(widths[1] ?? 0), 'from'.padEnd(widths[2] ?? 0), 'used by'].join('  '),
		...lines,
		'',
		"A command's own flag wins over these; then a CONTROLROOM_* variable, the file, the default (docs/config.md).",
	]
		.map(terminalSafe)
		.join('\n');
}

/** `controlroom config [show|path]`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('config', argv, {json: {type: 'boolean'}});
	if (values.ledger !== undefined) throw new CliError('config: takes no --ledger; the settings are not in a ledger', USAGE_EXIT);
	const [verb = 'show', key, ...extra] = positionals;
	if (extra.length > 0 || (key !== undefined && verb !== 'show'))
		throw new CliError(`config: unexpected argument '${terminalSafe(extra[0] ?? key ?? '')}'`, USAGE_EXIT);
	if (key !== undefined && !Object.hasOwn(SETTINGS, key)) {
		const near = nearestName(key, Object.keys(SETTINGS));
		throw new CliError(
			`config show: no setting '${terminalSafe(key)}'${near === null ? '' : ` (did you mean ${near}?)`}; controlroom config lists them`,
			USAGE_EXIT,
		);
	}
	if (verb === 'path') {
		if (values.json) throw new CliError('config: --json goes with show', USAGE_EXIT);
		return (out(terminalSafe(configPath())), 0);
	}
	if (verb !== 'show') throw new CliError(`config: expected show or path, got '${verb}'`, USAGE_EXIT);
	const {file, settings: every} = effectiveSettings();
	const rows = key === undefined ? every : every.filter(row => row.key === key);
	const path = file?.path ?? configPath();
	if (!values.json) return (out(table(path, rows, file !== null)), 0);
	const settings = rows.map(({key, resolved}) => ({
		key,
		value: settingInFile(SETTINGS[key].kind, resolved.value),
		source: resolved.source,
		origin: resolved.origin,
		env: envOf(key) ?? null,
		usedBy: SETTINGS[key].usedBy,
		about: SETTINGS[key].about,
	}));
	out(terminalSafeJson({version: 1, path, exists: file !== null, settings}, 2));
	return 0;
}
