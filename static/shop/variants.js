// Variants: the product page's price, was-price, SKU, stock line and cover (a variant's own
// image when it has one, else the product's) follow the chosen variant, and the address says
// which (?variant=<SKU>), as the server renders it when the page is opened with it. Without JavaScript the page shows the variant in its address
// and each option's label shows its price; the form posts the option chosen.
(function () {
  "use strict";
  var form = document.querySelector("form.add-to-cart");
  if (!form) { return; }
  function show(selector, text) {
    var element = document.querySelector(selector);
    if (!element) { return; }
    element.textContent = text;
    element.hidden = !text;
  }
  // The covers rendered (templates/catalog/_gallery.html): data-cover="" the product's, and
  // data-cover="<SKU>" each variant's own image; the chosen variant's shows, else the product's.
  function showCover(sku) {
    var covers = document.querySelectorAll("[data-cover]");
    var own = false, i;
    for (i = 0; i < covers.length; i += 1) {
      if (covers[i].getAttribute("data-cover") === sku) { own = true; }
    }
    for (i = 0; i < covers.length; i += 1) {
      covers[i].hidden = covers[i].getAttribute("data-cover") !== (own ? sku : "");
    }
  }
  form.addEventListener("change", function (event) {
    var input = event.target;
    if (!input || input.name !== "sku" || input.type !== "radio" || !input.checked) { return; }
    show("[data-variant-price]", input.dataset.price);
    show("[data-variant-was]", input.dataset.was);
    show("[data-variant-save]", input.dataset.save);
    show("[data-variant-sku]", input.value);
    showCover(input.value);
    var stock = document.getElementById("stock-status");
    if (stock) {
      stock.textContent = input.dataset.stock;
      stock.className = "stock " + input.dataset.stockState;
    }
    var qty = document.getElementById("qty");
    if (qty && input.dataset.maxQty) {
      qty.max = input.dataset.maxQty;
      if (Number(qty.value) > Number(qty.max)) { qty.value = qty.max; }
    }
    var address = new URL(window.location.href);
    address.searchParams.set("variant", input.value);
    window.history.replaceState(null, "", address.pathname + address.search + address.hash);
  });
}());
