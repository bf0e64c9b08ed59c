/* Checkout with Stripe.js: the card is typed into Stripe's own field and turned into a token
 * there (stripe.createToken); only the token is posted to the shop, never the card.
 * On the 3-D Secure page, Stripe.js asks the bank (stripe.confirmCardPayment), then the page
 * posts to /checkout/confirm/, where the server reads the PaymentIntent itself. */
(function () {
  "use strict";
  // The order summary: drawn shut (on a phone, one column, it stays so: the form first to the
  // eye, nothing moved under the shopper); always open on a desktop, where it is the right column.
  var summary = document.getElementById("order-summary");
  if (summary && window.matchMedia) {
    var wide = window.matchMedia("(min-width: 48rem)");
    if (wide.matches) summary.open = true;
    summary.addEventListener("toggle", function () {
      if (wide.matches && !summary.open) summary.open = true;
    });
  }
  // The billing address's own fields wait in a <noscript> (text to the browser while the page
  // loads) until "Same as the shipping address" is unchecked: then they join the form.
  var billingSame = document.getElementById("id_bill-same");
  var billingLater = document.getElementById("billing-later");
  if (billingSame && billingLater) {
    billingSame.addEventListener("change", function () {
      if (billingSame.checked || !billingLater.parentNode) return;
      billingLater.insertAdjacentHTML("afterend", billingLater.textContent);
      billingLater.parentNode.removeChild(billingLater);
    });
  }
  var mountPoint = document.getElementById("card-element");
  var form = document.querySelector("form.checkout");
  if (mountPoint && form && typeof Stripe === "function") {
    var stripe = Stripe(mountPoint.dataset.key);
    // Styled as the page's own fields: its font, size and colours (Stripe draws in its frame).
    var card = stripe.elements().create("card", {style: {
      base: {fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", fontSize: "16px", color: "#1d1f24",
             "::placeholder": {color: "#555b66"}},
      invalid: {color: "#b3261e", iconColor: "#b3261e"}
    }});
    card.mount(mountPoint);
    // Stripe's field lives in its own frame with its own labels. A field drawn in the page itself
    // (the local fake Stripe.js draws plain inputs) gets a label from its placeholder.
    Array.prototype.forEach.call(mountPoint.querySelectorAll("input:not([aria-label])"), function (input) {
      input.setAttribute("aria-label", "Card " + (input.getAttribute("placeholder") || "detail").replace("_", " "));
      input.setAttribute("autocomplete", "off");
    });
    var errors = document.getElementById("card-errors");
    var tokenField = form.querySelector("input[name=stripe_token]");
    var button = form.querySelector("button[type=submit]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      button.disabled = true;
      errors.textContent = "";
      stripe.createToken(card).then(function (result) {
        if (result.error || !result.token) {
          errors.textContent = (result.error && result.error.message) || "Your card details were not accepted.";
          button.disabled = false;
          return;
        }
        tokenField.value = result.token.id;
        form.submit();
      });
    });
  }
  var authenticate = document.getElementById("authenticate");
  if (authenticate && typeof Stripe === "function") {
    var stripeAuth = Stripe(authenticate.dataset.key);
    stripeAuth.confirmCardPayment(authenticate.dataset.clientSecret).then(function () {
      authenticate.querySelector("form").submit();
    });
  }
})();
