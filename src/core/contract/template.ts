import type {ContractKind} from './model.ts';

const PRODUCTION = `# Optional production fields, any kind (uncomment what you use):
# state: {tried: [...], confirmed: [...], provisional: [...]}
# authority: {may_read: [...], may_write: [...], needs_reapproval: [...]}
# evidence: [{pointer: "...", note: "..."}]
# guardrails: {passed: [...], applying: [...], tripwires: [...]}
# trace: {trace_id: "...", parent_span: "..."}
# escalation: {contradiction: "...", partial_success: "...", expired_approval: "...", low_confidence: "..."}
`;

// Every placeholder left in a field is an error (docs/contracts.md, "Placeholders"), so a
// template writes what a kind does not need as comments: uncomment a line to use it.
const YAML_TEMPLATES: Readonly<Record<ContractKind, string>> = {
	task: `kind: task
title: <one line naming the work>
goal: <the outcome, as someone would observe it>
context:
  repository: .
  base_revision: <commit the work starts from>
  # reproduction: <how to see the current behaviour>
  # expected: <what should happen instead>
# constraints: [<what must not change, what to use or avoid>]
scope:
  allowed: [<what may change>]
  excluded: [<what must not change>]
execution:
  operator: <who does the work>
  # setup_command: <command the repository defines, e.g. npm ci>
  test_command: <command the repository defines, e.g. npm test>
  permissions: <access the operator has>
acceptance:
  checks:
    - <a line a person or a script can check>
  acceptors:
    engineer: <who accepts; never the operator>
stop_when:
  - <a condition that means stop and ask>
delivery:
  patch_revision: required
  commands_and_results: required
  # sample_output: <optional>
  untested_cases: required
`,
	bug: `kind: bug
title: <one line naming the defect>
problem: <what goes wrong>
reproduce:
  - <first thing to do>
  - <what you then see>
expected: <what should happen instead>
hard_to_see: <what made it hard to notice>
context:
  repository: .
  base_revision: <commit where it reproduces>
acceptance:
  checks:
    - <a line a person or a script can check>
  acceptors:
    engineer: <who accepts>
`,
	transfer: `kind: transfer
title: <one line naming what is handed over>
problem: <the problem that was solved>
solution_shape: <the shape of the solution, in a few lines>
decisions:
  - {choice: <what was chosen>, over: <what was not>, why: <why>}
steps:
  - <first step to repeat it>
verification:
  - <how to check it worked>
gotchas: []
environment_specific:
  <value to adapt>: <how to adapt it, not copy it>
`,
};

/** A contract template with `<...>` placeholders that `contract check` flags until each is filled in. */
export function contractTemplate(kind: ContractKind, format: 'yaml' | 'markdown'): string {
	const yaml = `${YAML_TEMPLATES[kind]}${PRODUCTION}`;
	return format === 'yaml'
		? yaml
		: `---\n${yaml}---\n\n<!-- Sections fill fields too: ## Goal, ## Context (prose works), ## Constraints, ## Acceptance, ## Out of scope; mark what you are not sure of with (guess). -->\n`;
}

/** What an evidence template can be shaped by: the contract's acceptance lines and acceptors. */
export type EvidenceTemplateTerms = {readonly checks: readonly string[]; readonly acceptors: readonly string[]};

function yamlComment(text: string): string {
	return text.replace(/\s+/g, ' ').trim();
}

/**
 * An evidence file for `hand-in`, with `<...>` placeholders the hand-in refuses until each is
 * filled in. Given a contract's terms, it has one `after` entry per acceptance line, the line
 * quoted above it, and names the acceptors.
 */
export function evidenceTemplate(terms: EvidenceTemplateTerms | null): string {
	const checks = terms && terms.checks.length > 0 ? terms.checks : ['<acceptance line 1 of the contract>'];
	const after = checks.flatMap((check, index) => [
		`  # ${index + 1}: ${yamlComment(check)}`,
		`  - check: ${index + 1}`,
		`    command: <the command that checks line ${index + 1}>`,
		`    exit_code: <its real exit code; 0 to hand in>`,
		`    output: <what it printed, cut to what matters>`,
	]);
	const acceptors = terms && terms.acceptors.length > 0 ? ` (one of ${terms.acceptors.join(', ')})` : '';
	return `# Evidence for controlroom hand-in: fill in every <...>; exit codes are the real ones.
before:
  command: <a command that shows the problem before the change>
  exit_code: <its real exit code>
  output: <optional, what it printed>
  base_revision: <optional, the commit the work started from>
change:
  - file: <a file you changed>
    reason: <why it changed>
after:
${after.join('\n')}
# Required even when empty: [] says "nothing uncertain"; list what you did not check.
uncertainty: []
review:
  commit: <the commit to review>
  acceptor: <who accepts the work${acceptors}; never the one who did it>
`;
}
