// dev_render.mjs: a development tool that assembles a heapreplay --html page
// the way the build and heapreplay do: the template report.html with each of
// its four placeholders replaced by the library CSS + css_files.txt, the
// libraries (d3, d3-flame-graph, uPlot), the data file, and app_files.txt.
//   node analyzers/html/web/dev_render.mjs DATA.json OUT.html
// Env HEAPREC_NODE_MODULES overrides third_party/js/node_modules.
// Must not be part of the product: heapreplay assembles real pages in C++.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.HEAPREC_NODE_MODULES ||
  path.resolve(here, "../../../third_party/js/node_modules");

const [dataPath, outPath] = process.argv.slice(2);
if (!dataPath || !outPath) {
  console.error("usage: node dev_render.mjs DATA.json OUT.html");
  process.exit(2);
}

const read = (p) => fs.readFileSync(p, "utf8");
const list = (name) => read(path.join(here, name)).split("\n").map((s) => s.trim())
  .filter((s) => s && !s.startsWith("#"));

// What goes inside <script>: "</script" and "<!--" could end or confuse it.
const scriptSafe = (s) => s.replace(/<\/script/gi, "<\\/script").replace(/<!--/g, "<\\!--");
// What goes inside <style>.
const styleSafe = (s) => s.replace(/<\/style/gi, "<\\/style");

const libCss = ["d3-flame-graph/dist/d3-flamegraph.css", "uplot/dist/uPlot.min.css"]
  .map((p) => read(path.join(modules, p)));
const libJs = ["d3/dist/d3.min.js", "d3-flame-graph/dist/d3-flamegraph.umd.min.js",
  "uplot/dist/uPlot.iife.min.js"].map((p) => read(path.join(modules, p)));
const appCss = list("css_files.txt").map((f) => read(path.join(here, f)));
const appJs = list("app_files.txt").map((f) => read(path.join(here, f)));
const data = read(dataPath).trim();
JSON.parse(data); // refuse a broken data file here rather than in the page

const parts = {
  "/*@HEAPREC_CSS@*/": styleSafe(libCss.concat(appCss).join("\n")),
  "/*@HEAPREC_LIBS@*/": scriptSafe(libJs.join(";\n")),
  // As heapreplay writes it (html_page.cc): '<' only occurs inside JSON
  // strings, where \u003c means the same.
  "/*@HEAPREC_DATA@*/": data.replace(/</g, "\\u003c"),
  "/*@HEAPREC_APP@*/": scriptSafe(appJs.join("\n")),
};
const template = read(path.join(here, "report.html"));
for (const placeholder of Object.keys(parts)) {
  if (template.split(placeholder).length !== 2) {
    throw new Error("report.html must hold " + placeholder + " exactly once");
  }
}
// One pass over the template, with a function so "$&" in the text stays as is.
const page = template.replace(/\/\*@HEAPREC_(?:CSS|LIBS|DATA|APP)@\*\//g, (p) => parts[p]);
fs.writeFileSync(outPath, page);
console.log(outPath + ": " + page.length + " bytes");
