export function NotFoundPage() {
  return <main>NotFoundPage</main>;
}

export default NotFoundPage;
