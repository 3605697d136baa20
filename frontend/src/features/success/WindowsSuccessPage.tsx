export function WindowsSuccessPage() {
  return <main>WindowsSuccessPage</main>;
}

export default WindowsSuccessPage;
