export function RedeemPage() {
  return <main>RedeemPage</main>;
}

export default RedeemPage;
