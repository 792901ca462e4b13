// report_screenshot.mjs: a screenshot of a heapreplay --html page as it opens
// in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core
// from third_party/js), optionally after clicking some of its controls; for
// the README's pictures and for bug reports.
//
//   node tools/report_screenshot.mjs PAGE.html OUT.png [SELECTOR,...] [--viewport]
//
// SELECTORs are CSS selectors clicked in order, e.g.
// 'button[data-chart=sites],#calltree-section button[data-tree=bottom]'
// ("By call stack" chart, bottom-up tree). The whole page is captured unless
// --viewport (the first 1280x900 pixels). Prints the view the page opened on.
import { chromium } from "../third_party/js/node_modules/playwright-core/index.mjs";
import path from "node:path";

const args = process.argv.slice(2).filter((a) => a !== "--viewport");
const viewportOnly = process.argv.includes("--viewport");
if (args.length < 2) {
  console.error("usage: node tools/report_screenshot.mjs PAGE.html OUT.png [SELECTOR,...] [--viewport]");
  process.exit(2);
}
const [html, out, clicks = ""] = args;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto("file://" + path.resolve(html));
  await page.waitForFunction(() => window.heaprecPage && (window.heaprecPage.ready || window.heaprecPage.error),
    null, { timeout: 60000 });
  const error = await page.evaluate(() => window.heaprecPage.error);
  if (error) throw new Error(html + ": the page did not render: " + error);
  console.log("opened on: " + (await page.evaluate(() => window.heaprecPage.state().view)));
  for (const sel of clicks.split(",").filter(Boolean)) {
    await page.click(sel);
    await page.waitForTimeout(300);
  }
  await page.waitForTimeout(1000);  // the flame graph's transitions end
  await page.screenshot({ path: out, fullPage: !viewportOnly });
  console.log("screenshot: " + out);
} finally {
  await browser.close();
}
