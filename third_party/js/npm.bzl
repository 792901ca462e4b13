"""npm_modules: third_party/js/node_modules as the external repository @npm.

tools/setup.sh installs the packages with `npm ci` from the committed
package-lock.json (npm's registry is the one network this project uses for
them, and only then); Bazel itself fetches nothing: this rule links the
installed folder in and names the files the build bundles into the HTML
report. It re-runs when the lockfile changes.
"""

_BUILD = """
package(default_visibility = ["//visibility:public"])

# Bundled into heapreplay --html pages, in this order (d3 first: d3-flame-graph
# needs the global d3).
filegroup(
    name = "report_libs_js",
    srcs = [
        "node_modules/d3/dist/d3.min.js",
        "node_modules/d3-flame-graph/dist/d3-flamegraph.umd.min.js",
        "node_modules/uplot/dist/uPlot.iife.min.js",
    ],
)

filegroup(
    name = "report_libs_css",
    srcs = [
        "node_modules/d3-flame-graph/dist/d3-flamegraph.css",
        "node_modules/uplot/dist/uPlot.min.css",
    ],
)

# One file of playwright-core, for tests to find the installed package by.
exports_files(["node_modules/playwright-core/package.json"])
"""

def _npm_modules_impl(ctx):
    lock = ctx.path(Label("//third_party/js:package-lock.json"))
    modules = lock.dirname.get_child("node_modules")
    installed = modules.get_child(".package-lock.json")
    if not installed.exists:
        fail("%s is missing: run tools/setup.sh, which installs it with `npm ci` from %s" %
             (modules, lock))
    if ctx.read(installed).count('"version"') == 0:
        fail("%s looks empty: run tools/setup.sh again" % modules)
    ctx.symlink(modules, "node_modules")
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", _BUILD)

npm_modules = repository_rule(
    implementation = _npm_modules_impl,
    local = True,
)
