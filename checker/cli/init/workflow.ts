/** The GitHub Actions workflow `kmc init` writes: run the suite, publish JUnit and the Markdown summary. */
export const WORKFLOW = `# Checks every protocol design against the verdicts kmc.suite.yaml expects, on every change.
name: protocol designs
on:
  pull_request:
  push:
    branches: [main]

jobs:
  kmc-ci:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: Check every design against its expected verdicts and baseline
        # Under Actions, failing checks are annotated and the summary is added to the job's page.
        run: npx kmc ci --junit kmc-out/junit.xml --markdown kmc-out/summary.md --out kmc-out/counterexamples
      - name: Publish the JUnit report
        if: always()
        uses: mikepenz/action-junit-report@v5
        with:
          report_paths: kmc-out/junit.xml
      - name: Keep the reports and counterexamples
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: kmc-ci
          path: kmc-out/
`;
