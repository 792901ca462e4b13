"""npm_modules: third_party/js/node_modules as the external repository @npm.

tools/setup.sh installs the packages with `npm ci` from the committed
package-lock.json (npm's registry is the one network this project uses for
them, and only then); Bazel itself fetches nothing: this rule links the
installed folder in and names the files the build bundles into the HTML
report. It re-runs when the lockfile changes.
"""

_BUILD = """
package(default_visibility = ["//visibility:public"])

# Bundled into heapreplay --html pages (analyzers/html/BUILD.bazel names them
# one by one, in the order they must load: a filegroup's $(locations) is
# sorted, which would put d3-flame-graph before the d3 it needs).
exports_files([
    "node_modules/d3/dist/d3.min.js",
    "node_modules/d3-flame-graph/dist/d3-flamegraph.umd.min.js",
    "node_modules/uplot/dist/uPlot.iife.min.js",
    "node_modules/d3-flame-graph/dist/d3-flamegraph.css",
    "node_modules/uplot/dist/uPlot.min.css",
    # For tests to find the installed playwright-core by.
    "node_modules/playwright-core/package.json",
])
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
