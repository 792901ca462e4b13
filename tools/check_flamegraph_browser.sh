#!/bin/bash
# Opens a heapreplay flame graph in headless Chromium (Debian's chromium)
# and drives it as a user would: click a frame to zoom, Reset Zoom, search.
# Prints what the page did and exits non-zero if any step failed.
#   tools/check_flamegraph_browser.sh FLAME.svg [FUNCTION-PREFIX]
# FUNCTION-PREFIX picks the frame to click (default: the first below the root).
set -eu
svg="$(readlink -f "${1:?usage: tools/check_flamegraph_browser.sh FLAME.svg [FUNCTION-PREFIX]}")"
prefix="${2:-}"
command -v chromium >/dev/null || { echo "check_flamegraph_browser: chromium not found (apt-get install chromium)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$svg" "$tmp/graph.svg"
cat >"$tmp/harness.html" <<EOF_HTML
<!doctype html><html><body><iframe id="f" src="graph.svg" width="1300" height="900"></iframe>
<pre id="out">no result</pre>
<script>
const out = [];
let ok = true;
const check = (what, cond) => { out.push((cond ? "ok   " : "FAIL ") + what); ok = ok && cond; };
document.getElementById("f").addEventListener("load", () => setTimeout(() => {
  try {
    const win = document.getElementById("f").contentWindow, doc = win.document;
    const click = (el) => el.dispatchEvent(new win.MouseEvent("click", {bubbles: true}));
    const gs = Array.from(doc.querySelectorAll("g.f"));
    const rootW = parseFloat(gs[0].querySelector("rect").getAttribute("width"));
    const prefix = "$prefix";
    const g = prefix ? gs.find(x => x.querySelector("title").textContent.startsWith(prefix)) : gs[1];
    const rect = g.querySelector("rect"), before = rect.getAttribute("width");
    out.push("frames: " + gs.length + ", clicked: " + g.querySelector("title").textContent.split("\\n")[0]);
    click(rect);
    check("zoom: the frame spans the width (" + rect.getAttribute("width") + " of " + rootW + ")",
          Math.abs(parseFloat(rect.getAttribute("width")) - rootW) < 0.5);
    check("zoom: Reset Zoom shows", !doc.getElementById("unzoom").classList.contains("hide"));
    click(doc.getElementById("unzoom"));
    check("reset: the frame is back to " + before, rect.getAttribute("width") === before);
    check("reset: nothing hidden", doc.querySelectorAll("g.f.hide").length === 0);
    const name = g.querySelector("title").textContent.split(/\\s/)[0].replace(/[^A-Za-z0-9_]/g, "");
    win.prompt = () => name;
    click(doc.getElementById("search"));
    const matched = doc.getElementById("matched").textContent;
    check("search '" + name + "': " + matched, /Matched: [0-9.]+%/.test(matched) &&
          !/Matched: 0(\\.0+)?%/.test(matched));
  } catch (e) { check("no script error: " + e, false); }
  document.getElementById("out").textContent = out.join("\\n") + (ok ? "\\nPASS" : "\\nFAILED");
}, 500));
</script></body></html>
EOF_HTML
result="$(timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$tmp/harness.html" \
  2>/dev/null | sed -n '/<pre id="out">/,/<\/pre>/p' | sed 's/<[^>]*>//g')"
echo "$result"
echo "$result" | grep -qx PASS
