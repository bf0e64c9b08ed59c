/* The category tree in the admin's changelist (catalog/admin_tree.py).
 *
 * - Expand and collapse: each node's toggle, and "Expand all" / "Collapse all". The state is
 *   remembered in the browser (localStorage): whether nodes start collapsed, and the nodes
 *   toggled the other way. Without a stored state, trees of more than 200 categories start
 *   collapsed. A search result shows every row (the path to each match is open) until a toggle
 *   is used.
 * - Drag and drop: press a row's handle and drop it on another row, in its middle to move the
 *   category inside (last child), near its top or bottom edge to put it before or after. Pointer
 *   events, not HTML5 drag and drop, so mouse, pen, touch and WebDriver actions all work. The
 *   drop is a POST to #category-tree's data-move-url (CSRF token from the changelist form); the
 *   page reloads on success, and a refusal (a drop on the category's own subtree) is shown in the
 *   status line, the tree left as it was.
 *
 * A static file: the shop's CSP allows scripts from the shop only.
 */
(function () {
  "use strict";

  var STORE_KEY = "shop.categoryTree";
  var COLLAPSED_ABOVE = 200;

  function ready(callback) {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", callback);
    } else {
      callback();
    }
  }

  ready(function () {
    var tree = document.getElementById("category-tree");
    if (!tree) {
      return;
    }
    var byId = {};
    var children = {};
    var spans = Array.prototype.slice.call(tree.querySelectorAll(".tree-node"));
    spans.forEach(function (span) {
      var row = span.closest("tr");
      var id = span.getAttribute("data-node");
      var parent = span.getAttribute("data-parent");
      row.setAttribute("data-node", id);
      byId[id] = {id: id, parent: parent, row: row, toggle: span.querySelector(".tree-toggle")};
      (children[parent] = children[parent] || []).push(id);
    });
    var searching = tree.getAttribute("data-searching") === "1";
    var status = tree.querySelector(".tree-status");
    var state = loadState();

    // -- expand and collapse ------------------------------------------------------------

    function loadState() {
      try {
        var stored = JSON.parse(window.localStorage.getItem(STORE_KEY));
        if (stored && typeof stored === "object") {
          return {all: Boolean(stored.all), except: stored.except || {}};
        }
      } catch (error) {
        // No storage, or not ours: start afresh.
      }
      return {all: spans.length > COLLAPSED_ABOVE, except: {}};
    }

    function saveState() {
      try {
        window.localStorage.setItem(STORE_KEY, JSON.stringify(state));
      } catch (error) {
        // Storage full or refused: the state lasts for this page only.
      }
    }

    function isCollapsed(id) {
      return state.all !== Boolean(state.except[id]);
    }

    function render() {
      Object.keys(byId).forEach(function (id) {
        var node = byId[id];
        var hidden = false;
        var parent = node.parent;
        while (!searching && parent && byId[parent]) {
          if (isCollapsed(parent)) {
            hidden = true;
            break;
          }
          parent = byId[parent].parent;
        }
        node.row.classList.toggle("tree-hidden", hidden);
        if (node.toggle) {
          node.toggle.setAttribute("aria-expanded", searching || !isCollapsed(id) ? "true" : "false");
        }
      });
    }

    tree.addEventListener("click", function (event) {
      var toggle = event.target.closest(".tree-toggle");
      var all = event.target.closest(".tree-expand-all, .tree-collapse-all");
      if (toggle) {
        var id = toggle.closest(".tree-node").getAttribute("data-node");
        var collapse = searching ? true : !isCollapsed(id);
        if (collapse === state.all) {
          delete state.except[id];
        } else {
          state.except[id] = true;
        }
      } else if (all) {
        state = {all: all.classList.contains("tree-collapse-all"), except: {}};
      } else {
        return;
      }
      event.preventDefault();
      searching = false;
      saveState();
      render();
    });

    render();

    // -- drag and drop --------------------------------------------------------------------

    var moveUrl = tree.getAttribute("data-move-url");
    if (!moveUrl) {
      return;
    }
    var drag = null;

    function subtreeOf(id) {
      var inside = {};
      var stack = [id];
      while (stack.length) {
        var current = stack.pop();
        inside[current] = true;
        (children[current] || []).forEach(function (child) { stack.push(child); });
      }
      return inside;
    }

    function clearMarks() {
      var marked = tree.querySelectorAll(".tree-drop-inside, .tree-drop-before, .tree-drop-after, .tree-drop-refused");
      Array.prototype.forEach.call(marked, function (row) {
        row.classList.remove("tree-drop-inside", "tree-drop-before", "tree-drop-after", "tree-drop-refused");
      });
    }

    function showStatus(message, isError) {
      status.textContent = message;
      status.classList.toggle("tree-error", isError);
      status.classList.toggle("tree-ok", !isError);
      status.hidden = false;
    }

    function csrfToken() {
      var input = document.querySelector("input[name=csrfmiddlewaretoken]");
      return input ? input.value : "";
    }

    function send(node, target, where) {
      var body = new FormData();
      body.append("node", node);
      body.append("target", target);
      body.append("where", where);
      showStatus("Moving…", false);
      window.fetch(moveUrl, {
        method: "POST", body: body, credentials: "same-origin",
        headers: {"X-CSRFToken": csrfToken(), "Accept": "application/json"}
      }).then(function (response) {
        return response.json().then(function (data) {
          return {ok: response.ok, data: data};
        }, function () {
          return {ok: false, data: {error: "The move failed (" + response.status + ")."}};
        });
      }).then(function (result) {
        if (result.ok) {
          window.location.reload();
        } else {
          showStatus(result.data.error || "The move failed.", true);
        }
      }, function () {
        showStatus("The move failed: the shop did not answer.", true);
      });
    }

    tree.addEventListener("pointerdown", function (event) {
      var handle = event.target.closest(".tree-handle");
      if (!handle || event.button !== 0) {
        return;
      }
      event.preventDefault();
      var id = handle.closest(".tree-node").getAttribute("data-node");
      drag = {id: id, target: null, where: null, subtree: subtreeOf(id)};
      byId[id].row.classList.add("tree-dragging");
      tree.classList.add("tree-drag-active");
    });

    document.addEventListener("pointermove", function (event) {
      if (!drag) {
        return;
      }
      event.preventDefault();
      clearMarks();
      drag.target = null;
      var element = document.elementFromPoint(event.clientX, event.clientY);
      var row = element && element.closest("tr[data-node]");
      if (!row || !tree.contains(row) || row.getAttribute("data-node") === drag.id) {
        return;
      }
      var box = row.getBoundingClientRect();
      var y = (event.clientY - box.top) / box.height;
      drag.where = y < 0.25 ? "before" : (y > 0.75 ? "after" : "inside");
      drag.target = row.getAttribute("data-node");
      row.classList.add(drag.subtree[drag.target] ? "tree-drop-refused" : "tree-drop-" + drag.where);
    });

    function endDrag(event) {
      if (!drag) {
        return;
      }
      var done = drag;
      drag = null;
      clearMarks();
      byId[done.id].row.classList.remove("tree-dragging");
      tree.classList.remove("tree-drag-active");
      if (event.type === "pointerup" && done.target) {
        send(done.id, done.target, done.where);
      }
    }

    document.addEventListener("pointerup", endDrag);
    document.addEventListener("pointercancel", endDrag);
  });
}());
