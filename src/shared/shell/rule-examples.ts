// What a rule covers and what it does not, in two or three examples each: the card and the rule list show them, so
// the owner sees the rule's reach before adding it (shell/rules.ts decides; these only illustrate its semantics).
import { INTERPRETERS, prefixWords } from './rules';
import { basename } from './wrappers';

export interface RuleCoverage {
  covers: string[];
  not: string[];
  /** Said beside the rule when it is wider than usual (any options). */
  warning?: string;
}

export function ruleCoverage(rule: {
  tool: string;
  command_prefix: string | null;
  behavior: 'allow' | 'deny';
  any_options?: boolean;
  exact?: boolean;
}): RuleCoverage {
  const p = rule.command_prefix;
  if (p === null) {
    return rule.behavior === 'allow'
      ? {
          covers: [`every ${rule.tool} prompt`],
          not: [
            `while a deny rule exists: what it denies anywhere in a command, and commands Perch cannot read (\`$cmd push\`, \`eval "$x"\`)`,
          ],
        }
      : { covers: [`every ${rule.tool} prompt`], not: [] };
  }
  const ws = prefixWords(p) ?? p.split(/\s+/);
  const program = basename(ws[0] ?? '');
  if (rule.behavior === 'deny') {
    return {
      covers: [
        `\`${p}\``,
        `\`sudo ${p}\`, \`bash -c '${p}'\`, \`ls && ${p}\``,
        ws.length > 1 ? `\`${ws[0]} -x ${ws.slice(1).join(' ')}\` (options between its words)` : `\`/usr/bin/${program}\``,
      ],
      not: [
        ws.length > 1
          ? `\`${ws[0]}\` without ${ws
              .slice(1)
              .map((w) => `\`${w}\``)
              .join(' ')}`
          : `other programs`,
      ],
    };
  }
  if (rule.exact) return { covers: [`\`${p}\` exactly`], not: [`\`${p} other.txt\`, \`${p} --option\``, `\`sudo ${p}\`, \`${p} > out\``] };
  if (INTERPRETERS.has(program)) {
    return {
      covers: [`\`${p}\` exactly`],
      not: [`\`${p} other.txt\` (${program} runs its operands as code)`, `\`sudo ${p}\`, \`${p} > out\``],
    };
  }
  const opt = rule.any_options ? [`\`${p} --any-option\``] : [];
  return {
    covers: [`\`${p}\``, `\`${p} src/file.txt\``, ...opt],
    not: [
      ...(rule.any_options ? [] : [`\`${p} --option\` (options it does not name)`]),
      `\`${p} && other\`, \`${p} $(…)\`, \`${p} > file\``,
      `\`sudo ${p}\`, \`FOO=1 ${p}\`, \`bash -c '${p}'\``,
    ],
    warning: rule.any_options ? `Any options: an option can make ${program} run other code (as --exec or --pre do).` : undefined,
  };
}
