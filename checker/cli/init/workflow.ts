/**
 * The GitHub Actions workflow `kmc init` writes: the suite spread over a matrix of slices
 * (`kmc ci --shard I/N`), then one job that merges the slices (`kmc ci --merge`) into the report and exit
 * code of the whole suite, and publishes the JUnit report and the Markdown summary. The slice count is
 * the matrix's length (`strategy.job-total`), so adding a slice is adding a number to the list.
 */
export const WORKFLOW = `# Checks every protocol design against the verdicts kmc.suite.yaml expects, on every change.
# The suite runs in slices side by side (add numbers to matrix.slice for more); the report job merges
# them into one report and one verdict.
name: protocol designs
on:
  pull_request:
  push:
    branches: [main]

jobs:
  slice:
    name: kmc ci slice \${{ matrix.slice }}
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        slice: [1, 2]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: Check this slice of the suite
        # Writes the slice's result (kmc-ci.json) and its counterexamples to kmc-out/ for the report job.
        run: npx kmc ci --shard \${{ matrix.slice }}/\${{ strategy.job-total }} --out kmc-out
      - name: Keep the slice's result
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: kmc-slice-\${{ matrix.slice }}
          path: kmc-out/

  report:
    needs: slice
    if: always()
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - uses: actions/download-artifact@v4
        with:
          pattern: kmc-slice-*
          path: kmc-slices
      - name: Merge the slices into one report
        # Fails as the whole suite run at once would: a differing verdict or drift from the baseline.
        # Under Actions, failing checks are annotated and the summary is added to the job's page.
        run: npx kmc ci --merge kmc-slices/* --junit kmc-out/junit.xml --markdown kmc-out/summary.md --out kmc-out/counterexamples
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
