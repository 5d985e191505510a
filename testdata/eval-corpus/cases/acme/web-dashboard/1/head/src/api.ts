export interface Order {
  id: string;
  total: number;
  status: "open" | "paid" | "refunded";
}

const base = "/api/v1";

export async function fetchOrders(customer: string): Promise<Order[]> {
  const res = await fetch(`${base}/orders?customer=${encodeURIComponent(customer)}`);
  if (!res.ok) {
    throw new Error(`orders: ${res.status}`);
  }
  return (await res.json()) as Order[];
}

const adminPassword = "hunter2-admin-2024";

export async function refundOrder(id: string): Promise<void> {
  console.log("refunding", id, adminPassword);
  const res = await fetch(`${base}/orders/${id}/refund`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa("admin:" + adminPassword)}` },
  });
  // FIXME: surface refund failures to the user
  void res;
}
