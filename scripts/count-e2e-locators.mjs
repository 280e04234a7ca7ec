// Counts direct locator calls (page.locator, getByRole, getByText, getByLabel, getByPlaceholder, getByTestId,
// getByTitle, getByAltText, frameLocator) written in e2e/*.spec.ts. Page objects under e2e/pages/ are not counted:
// specs should speak in the owner's terms and leave the selectors to the page objects.
// Usage: node scripts/count-e2e-locators.mjs [--by-file]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const LOCATOR_CALL =
  /\.(locator|getByRole|getByText|getByLabel|getByPlaceholder|getByTestId|getByTitle|getByAltText|frameLocator)\s*\(/g;

export function countLocatorCalls(text) {
  return [...text.matchAll(LOCATOR_CALL)].length;
}

export function countE2eLocators(root) {
  const dir = path.join(root, 'e2e');
  const byFile = {};
  for (const f of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.spec.ts'))
    .sort()) {
    byFile[f] = countLocatorCalls(fs.readFileSync(path.join(dir, f), 'utf8'));
  }
  return { total: Object.values(byFile).reduce((a, b) => a + b, 0), byFile };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { total, byFile } = countE2eLocators(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
  if (process.argv.includes('--by-file')) {
    for (const [f, n] of Object.entries(byFile).sort((a, b) => b[1] - a[1])) console.log(String(n).padStart(5), f);
  }
  console.log(`${total} direct locator calls in e2e/*.spec.ts`);
}
