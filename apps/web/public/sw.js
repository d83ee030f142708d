// Meridian's service worker: shows web push notifications and opens their link when clicked.
self.addEventListener("push", (event) => {
  let message = { title: "Meridian", body: "", url: null };
  try {
    message = { ...message, ...event.data.json() };
  } catch {
    if (event.data) message.body = event.data.text();
  }
  event.waitUntil(self.registration.showNotification(message.title, { body: message.body, data: { url: message.url }, icon: "favicon.svg" }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data && event.notification.data.url;
  if (url) event.waitUntil(self.clients.openWindow(url));
});
