// Search-as-you-type: fills the header search box's <datalist> with titles
// starting with what was typed (GET /search/suggest/?q=, JSON). Without
// JavaScript the search box is a plain form that submits to /search/.
(function () {
  "use strict";
  var input = document.getElementById("search-q");
  var list = document.getElementById("search-suggestions");
  if (!input || !list || !window.fetch) { return; }
  var url = input.getAttribute("data-suggest-url");
  var timer = null;
  var last = "";

  function fill(suggestions) {
    list.textContent = "";
    suggestions.forEach(function (s) {
      var option = document.createElement("option");
      option.value = s.title;
      list.appendChild(option);
    });
  }

  input.addEventListener("input", function () {
    var q = input.value;
    if (q === last) { return; }
    last = q;
    clearTimeout(timer);
    if (!q.trim()) { fill([]); return; }
    timer = setTimeout(function () {
      fetch(url + "?q=" + encodeURIComponent(q), { headers: { "Accept": "application/json" } })
        .then(function (response) { return response.ok ? response.json() : { suggestions: [] }; })
        .then(function (data) { if (input.value === q) { fill(data.suggestions || []); } })
        .catch(function () { /* suggestions are a nicety: the form still works */ });
    }, 150);
  });
}());
