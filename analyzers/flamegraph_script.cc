// kFlameGraphScript (flamegraph_script.h).
#include "analyzers/flamegraph_script.h"

namespace heaprec::analyzers {

const char kFlameGraphScript[] = R"JS(
(() => {  // nothing global but LAYOUT
  const SVG_NS = "http://www.w3.org/2000/svg";
  const HIGHLIGHT = "rgb(230,0,230)";
  // Coordinates are written to 0.01 px and no frame is narrower than 0.1 px.
  const EPS = 0.05;

  const allFrames = [];  // in document order, the root first
  const frameOf = new Map();  // <g> -> its entry in allFrames
  let zoomed = false;
  let searching = false;
  let lastTerm = "";

  function byId(id) { return document.getElementById(id); }

  function init() {
    for (const g of byId("frames").children) {
      const rect = g.querySelector("rect");
      const label = g.querySelector("text");
      const lines = g.querySelector("title").textContent.split("\n");
      const f = {
        g: g, rect: rect, label: label,
        name: lines[0], chars: Array.from(lines[0]), info: lines.join("  |  "),
        x: parseFloat(rect.getAttribute("x")), y: parseFloat(rect.getAttribute("y")),
        w: parseFloat(rect.getAttribute("width")), fill: rect.getAttribute("fill"),
        text: label ? label.textContent : "",
      };
      allFrames.push(f);
      frameOf.set(g, f);
    }
    const area = byId("frames");
    area.addEventListener("click", (e) => {
      const f = frameAt(e.target);
      if (f) zoom(f);
    });
    area.addEventListener("mouseover", (e) => {
      const f = frameAt(e.target);
      if (f) byId("details").textContent = f.info;
    });
    area.addEventListener("mouseout", () => { byId("details").textContent = " "; });
    byId("unzoom").addEventListener("click", unzoom);
    byId("search").addEventListener("click", () => (searching ? resetSearch() : askSearch()));
    window.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) {
        e.preventDefault();
        askSearch();
      } else if (e.key === "Escape") {
        if (searching) resetSearch(); else if (zoomed) unzoom();
      }
    });
  }

  function frameAt(node) {
    const g = node.closest ? node.closest("g.f") : null;
    return g ? frameOf.get(g) : undefined;
  }

  // Shortens a name to the label width as the C++ side does: cut, then "..".
  function fitLabel(f, w) {
    const max = Math.floor((w - 2 * LAYOUT.textPad) / LAYOUT.charWidth);
    if (max < 3) return "";
    return f.chars.length <= max ? f.name : f.chars.slice(0, max - 2).join("") + "..";
  }

  function place(f, x, w, text) {
    f.g.classList.remove("hide");
    f.rect.setAttribute("x", x.toFixed(2));
    f.rect.setAttribute("width", w.toFixed(2));
    if (!f.label) {
      if (!text) return;
      f.label = document.createElementNS(SVG_NS, "text");
      f.label.setAttribute("y", (f.y + LAYOUT.textDy).toFixed(2));
      f.g.appendChild(f.label);
    }
    f.label.setAttribute("x", (x + LAYOUT.textPad).toFixed(2));
    f.label.textContent = text;
  }

  // Stretches `target` to the full width: what it calls scales with it, its
  // callers span the width dimmed, everything else is hidden.
  function zoom(target) {
    const root = allFrames[0];
    const scale = root.w / target.w;
    for (const f of allFrames) {
      const within = f.x >= target.x - EPS && f.x + f.w <= target.x + target.w + EPS;
      const around = f.x <= target.x + EPS && f.x + f.w >= target.x + target.w - EPS;
      if (f.y <= target.y && within) {  // target or above it
        const w = f.w * scale;
        place(f, root.x + (f.x - target.x) * scale, w, fitLabel(f, w));
        f.g.classList.remove("parent");
      } else if (f.y > target.y && around) {  // a caller of target
        place(f, root.x, root.w, fitLabel(f, root.w));
        f.g.classList.add("parent");
      } else {
        f.g.classList.add("hide");
      }
    }
    zoomed = true;
    byId("unzoom").classList.remove("hide");
  }

  function unzoom() {
    for (const f of allFrames) {
      place(f, f.x, f.w, f.text);
      f.g.classList.remove("parent");
    }
    zoomed = false;
    byId("unzoom").classList.add("hide");
  }

  function askSearch() {
    const term = window.prompt("Highlight frames whose name matches (regular expression):",
                               lastTerm);
    if (term === null) return;
    if (term === "") {
      resetSearch();
      return;
    }
    let re;
    try {
      re = new RegExp(term);
    } catch (err) {
      window.alert("Not a regular expression: " + term);
      return;
    }
    lastTerm = term;
    const hits = [];
    for (const f of allFrames) {
      const hit = re.test(f.name);
      f.rect.setAttribute("fill", hit ? HIGHLIGHT : f.fill);
      if (hit) hits.push(f);
    }
    // The share of the whole profile under matched allFrames: left to right,
    // callers before callees, a match inside a counted match adds nothing.
    hits.sort((a, b) => a.x - b.x || b.y - a.y);
    let covered = 0;
    let end = -Infinity;
    for (const f of hits) {
      if (f.x >= end - EPS) {
        covered += f.w;
        end = f.x + f.w;
      }
    }
    const share = Math.min(100, (100 * covered) / allFrames[0].w);
    byId("matched").textContent = "Matched: " + share.toFixed(1) + "%";
    byId("search").textContent = "Reset Search";
    searching = true;
  }

  function resetSearch() {
    for (const f of allFrames) f.rect.setAttribute("fill", f.fill);
    byId("matched").textContent = " ";
    byId("search").textContent = "Search";
    searching = false;
  }

  window.addEventListener("load", init);
})();
)JS";

}  // namespace heaprec::analyzers
