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
