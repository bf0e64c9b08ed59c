"""The layers stay apart (``docs/architecture.md``, "Which way imports run"): the apps import
each other in one direction only, no module imports itself back through others (inside an
app too), and an import inside a function is one the allow-list below names, with its reason.

The graph is read from the code's own import statements (``ast``), migrations and tests left
out; ``from package import name`` counts as an import of ``package.name`` when that is a
module of the project, of ``package`` otherwise."""

import ast
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
# Every app of the project (a folder with an apps.py), the kernel apart.
APPS = tuple(sorted(path.parent.name for path in BASE_DIR.glob("*/apps.py") if path.parent.name != "core"))

# The documented direction, top to bottom: an app imports only apps of a lower rank.
RANK = {"shop": 5, "accounts": 4, "analytics": 4, "api": 4, "content": 4, "orders": 3, "promotions": 2.5, "shipping": 2.5, "taxes": 2.5,
        "addresses": 2.5,
        "catalog": 2, "inventory": 1, "core": 0}

# Imports against the direction, each ``(module, module imported): reason``: none. The tests
# below fail on any import not named here, and on an entry whose import is gone.
AGAINST_THE_DIRECTION = {}

# Imports inside functions, each ``(file, module imported): reason``.
INSIDE_FUNCTIONS = {
    # Django: an app's models and receivers load once the app registry is ready.
    ("accounts/apps.py", "accounts.signals"): "AppConfig.ready connects the receivers",
    ("content/apps.py", "content.receivers"): "AppConfig.ready connects the receivers",
    ("analytics/apps.py", "catalog.signals"): "AppConfig.ready connects analytics to the apps' signals",
    ("analytics/apps.py", "inventory.signals"): "AppConfig.ready connects analytics to the apps' signals",
    ("analytics/apps.py", "orders.signals"): "AppConfig.ready connects analytics to the apps' signals",
    ("analytics/apps.py", "analytics.receivers"): "AppConfig.ready: the receivers import the models",
    ("catalog/apps.py", "catalog.models"): "AppConfig.ready: models load after the registry",
    ("catalog/apps.py", "catalog.products.variants"): "AppConfig.ready: the reader handed to the inventory",
    ("catalog/apps.py", "catalog.receivers"): "AppConfig.ready connects the receivers",
    ("catalog/apps.py", "inventory.products"): "AppConfig.ready hands the inventory its reader of products",
    ("core/apps.py", "core.afterresponse"): "AppConfig.ready connects request_finished",
    ("inventory/apps.py", "inventory.checks"): "AppConfig.ready registers the system check",
    ("orders/apps.py", "orders.emails"): "AppConfig.ready connects the e-mail receivers",
    ("orders/apps.py", "orders.signals"): "AppConfig.ready connects the receivers",
    ("orders/apps.py", "orders.gift_cards_sold"): "AppConfig.ready connects the gift cards' issue",
    ("orders/apps.py", "orders.invoices"): "AppConfig.ready connects the credit notes' issue",
    ("orders/apps.py", "orders.models"): "AppConfig.ready hands promotions its reader of orders by cart",
    ("orders/apps.py", "promotions.reports"): "AppConfig.ready hands promotions its reader of orders by cart",
    ("orders/emails.py", "orders.invoices"): "invoices imports emails (a credit note's e-mail): the PDFs attached are asked for at send",
    ("orders/models.py", "orders.returns"): "returns imports the models: an order's timeline asks for its return events when shown",
    ("promotions/apps.py", "promotions.labels"): "AppConfig.ready: an offer saved publishes the labels' token",
    ("promotions/apps.py", "promotions.models"): "AppConfig.ready: models load after the registry",
    ("shipping/apps.py", "shipping.models"): "AppConfig.ready: models load after the registry",
    ("shop/apps.py", "shop.staffpasswords"): "AppConfig.ready connects the password receivers",
    ("shop/apps.py", "core.mqlpanel"): "AppConfig.ready: the debug toolbar panel, in DEBUG only",
    ("shop/startup.py", "catalog.models"): "start-up runs before the app registry is ready",
    ("shop/startup.py", "orders.stripelocal"): "the local Stripe, only when no Stripe key is set",
    # The local Stripe (its own process) only when the shop runs without a Stripe key.
    ("orders/payments.py", "orders.stripelocal"): "the local Stripe, only when no Stripe key is set",
    ("orders/webhooks.py", "orders.stripelocal"): "the local Stripe, only when no Stripe key is set",
}


def module_name(path):
    """``catalog/listings/facets.py`` -> ``catalog.listings.facets`` (a package by its folder)."""
    parts = list(path.relative_to(BASE_DIR).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules():
    """``{module name: path}`` of every app and the kernel, migrations left out."""
    return {module_name(path): path for top in (*APPS, "core") for path in sorted((BASE_DIR / top).rglob("*.py"))
            if "migrations" not in path.parts}


def imports(path, modules, text=None):
    """``(at module level, inside functions)``: two lists of ``(line, project module)`` that
    ``path`` imports (an ``if TYPE_CHECKING:`` block is not an import); ``text`` its source
    when given, else the file's."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def owner(dotted):
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted

    def targets(node):
        if isinstance(node, ast.Import):
            return [owner(alias.name) for alias in node.names]
        if node.level:
            base = package.split(".")[:len(package.split(".")) - node.level + 1]
            source = ".".join([*base, node.module] if node.module else base)
        else:
            source = node.module
        return [owner(f"{source}.{alias.name}") if f"{source}.{alias.name}" in modules else owner(source)
                for alias in node.names]

    top, inner = [], []

    def walk(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found = [(child.lineno, target) for target in targets(child) if target and target != name]
                (inner if in_function else top).extend(found)
            elif isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                continue
            else:
                walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    walk(ast.parse(path.read_text(encoding="utf-8") if text is None else text), False)
    return top, inner


def graph(planted=None):
    """``(module-level imports {module: {module}}, function-level [(file, line, module)])``;
    ``planted``: ``{path: source}`` of modules added to the project's (a test's own imports)."""
    planted = planted or {}
    modules = {**project_modules(), **{module_name(path): path for path in planted}}
    top, inner = {}, []
    for name, path in modules.items():
        at_top, in_functions = imports(path, modules, planted.get(path))
        top[name] = {target for _, target in at_top}
        inner.extend((str(path.relative_to(BASE_DIR)), line, target) for line, target in in_functions)
    return top, inner


def circles(edges):
    """The import circles of ``edges`` (Tarjan's strongly connected components of more than one
    module, or a module importing itself), each a sorted list of module names."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def app_of(module):
    return module.split(".")[0]


def against_the_direction(top, inner):
    """The imports of ``graph()``'s ``(top, inner)`` from one app to another of its rank or
    above (``RANK``), at module level or inside functions: ``{(module, module imported)}``."""
    edges = [(source, target) for source, targets in top.items() for target in targets]
    edges += [(module_name(BASE_DIR / path), target) for path, _, target in inner]
    return {(source, target) for source, target in edges
            if app_of(source) != app_of(target) and RANK[app_of(target)] >= RANK[app_of(source)]}


def apps_both_ways(top, inner):
    """The pairs of apps ``(a, b)``, ``a < b``, that import each other (at module level or inside
    functions), those of ``AGAINST_THE_DIRECTION`` left out."""
    pairs = {(app_of(source), app_of(target)) for source, targets in top.items() for target in targets}
    pairs |= {(path.split("/")[0], app_of(target)) for path, _, target in inner}
    pairs -= {(app_of(source), app_of(target)) for source, target in AGAINST_THE_DIRECTION}
    return sorted((a, b) for a, b in pairs if a < b and (b, a) in pairs)


def not_allowed_inside_functions(inner):
    """``"file:line: module"`` of each import inside a function that ``INSIDE_FUNCTIONS`` does not name."""
    return sorted({f"{path}:{line}: {target}" for path, line, target in inner if (path, target) not in INSIDE_FUNCTIONS})


def kernel_imports_of_apps(top, inner):
    """``"module: app module"`` of each import of an app (or the project) by the kernel."""
    offending = sorted({f"{source}: {target}" for source, targets in top.items() if app_of(source) == "core"
                        for target in targets if app_of(target) in APPS})
    return offending + sorted(f"{path}: {target}" for path, _, target in inner
                              if path.startswith("core/") and app_of(target) in APPS)


def test_no_import_circle_at_module_level_in_the_whole_project():
    top, _ = graph()
    assert circles(top) == []


def test_no_import_inside_a_function_but_those_allowed():
    _, inner = graph()
    assert not_allowed_inside_functions(inner) == []


def test_the_allow_list_names_only_imports_still_there():
    _, inner = graph()
    assert set(INSIDE_FUNCTIONS) - {(path, target) for path, _, target in inner} == set()


def test_no_two_apps_import_each_other():
    assert apps_both_ways(*graph()) == []


def test_imports_run_the_documented_direction():
    upward = against_the_direction(*graph())
    assert sorted(upward - set(AGAINST_THE_DIRECTION)) == []
    assert sorted(set(AGAINST_THE_DIRECTION) - upward) == []


def test_an_import_against_the_direction_fails_the_checks():
    # Three modules planted beside the project's: the inventory importing orders at module level,
    # promotions importing orders inside a function, the kernel importing the inventory.
    planted = {BASE_DIR / "inventory" / "planted.py": "from orders.models import Order\n",
               BASE_DIR / "promotions" / "planted.py": "def report():\n    from orders import pricing\n",
               BASE_DIR / "core" / "planted.py": "from inventory import session\n"}
    top, inner = graph(planted)
    assert {edge for edge in against_the_direction(top, inner) if edge[0].endswith(".planted")} == {
        ("inventory.planted", "orders.models"), ("core.planted", "inventory.session"), ("promotions.planted", "orders.pricing")}
    assert {("inventory", "orders"), ("orders", "promotions")} <= set(apps_both_ways(top, inner))
    assert [entry for entry in not_allowed_inside_functions(inner) if "planted" in entry] == [
        f"{Path('promotions', 'planted.py')}:2: orders.pricing"]
    assert "core.planted: inventory.session" in kernel_imports_of_apps(top, inner)


def test_a_circle_inside_an_app_fails_the_check():
    # Two modules of one app planted importing each other (one relatively) at module level.
    planted = {BASE_DIR / "catalog" / "planted_a.py": "from catalog import planted_b\n",
               BASE_DIR / "catalog" / "planted_b.py": "from . import planted_a\n"}
    assert ["catalog.planted_a", "catalog.planted_b"] in circles(graph(planted)[0])


def test_every_app_has_its_place_in_the_direction():
    assert sorted(set(APPS) - set(RANK)) == []


def test_the_kernel_imports_no_app_and_not_the_project():
    assert kernel_imports_of_apps(*graph()) == []


def test_the_documented_direction_is_the_one_tested():
    # docs/architecture.md's line under "shop": each group's apps share a rank, lower than the
    # group's before it, and every app is in one group.
    text = (BASE_DIR / "docs" / "architecture.md").read_text(encoding="utf-8")
    line = next(line.strip() for line in text.splitlines() if line.strip().startswith("-> accounts"))
    groups = [[name.split()[0] for name in group.split(", ")] for group in line.removeprefix("-> ").split(" -> ")]
    ranks = [{RANK[app] for app in group} for group in groups]
    assert all(len(rank) == 1 for rank in ranks) and [min(r) for r in ranks] == sorted((min(r) for r in ranks), reverse=True)
    assert len({min(r) for r in ranks}) == len(ranks)
    assert {"shop", *(app for group in groups for app in group)} == set(RANK)


def test_the_catalog_managers_do_not_import_the_models():
    # catalog.models imports the managers; the managers reach a sibling model by name
    # (catalog.store.siblings) and the cache gets its version reader from the middleware.
    top, _ = graph()
    managers = [name for name in top if name.startswith("catalog.") and (
        name.endswith(("manager", "_writes", "_reads")) or name in {"catalog.store.writes", "catalog.store.versions",
                                                                    "catalog.store.cache"})]
    assert len(managers) >= 10
    assert sorted(name for name in managers if "catalog.models" in top[name]) == []


def test_the_circle_check_sees_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
