export function MacSuccessPage() {
  return <main>MacSuccessPage</main>;
}

export default MacSuccessPage;
