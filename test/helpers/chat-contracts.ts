// Contracts as a chat assistant writes them through a connector: Markdown, the repository by name.

/** A task in the Markdown an assistant writes, for the repository named `shop`; `head` is its base revision. */
export function chatTask(
	head: string,
	options: {title?: string; goal?: string; acceptance?: readonly string[] | null; extra?: string} = {},
): string {
	const acceptance =
		options.acceptance === undefined ? ['`npm test` passes with a test that exports status=open'] : options.acceptance;
	return [
		'---',
		'kind: task',
		`title: ${options.title ?? 'Keep the status filter in the CSV export'}`,
		`context: {repository: shop, base_revision: "${head}"}`,
		'execution: {operator: worker-1, test_command: npm test, permissions: existing development access only}',
		'delivery: {patch_revision: required, commands_and_results: required, untested_cases: required}',
		'---',
		'',
		'## Goal',
		'',
		options.goal ?? 'The CSV export holds exactly the rows the status filter shows.',
		'',
		'## In scope',
		'',
		'- the export query',
		'',
		'## Out of scope',
		'',
		'- authentication',
		'',
		...(acceptance === null ? [] : ['## Acceptance', '', ...acceptance.map(line => `- ${line}`), '']),
		'## Acceptors',
		'',
		'- engineer: lee',
		'',
		'## Stop when',
		'',
		'- the filter means something else in the docs',
		...(options.extra === undefined ? [] : ['', options.extra]),
		'',
	].join('\n');
}
