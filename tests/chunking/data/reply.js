// Helpers added to every outgoing response, in the style of older Node frameworks.
var http = require("http");

var reply = Object.create(http.ServerResponse.prototype);
module.exports = reply;

/**
 * Sets the status code.
 */
reply.status = function status(code) {
  this.statusCode = code;
  return this;
};

// Sends `body` as JSON.
reply.json = function (body) {
  this.setHeader("Content-Type", "application/json");
  return this.end(JSON.stringify(body));
};

reply.set =
reply.header = function header(field, value) {
  this.setHeader(field, String(value));
  return this;
};

exports.notFound = (res) => res.status(404).json({ error: "not found" });

module.exports.redirect = function redirect(res, url) {
  res.setHeader("Location", url);
  return res.status(302).end();
};

function Receipt(order) {
  this.order = order;
}

Receipt.prototype.total = function () {
  return this.order.items.reduce((sum, item) => sum + item.price, 0);
};

handlers[name] = function () {};
