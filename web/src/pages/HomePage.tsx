import { Title } from '@mantine/core';
import { ServiceStatusCard } from '../components/ServiceStatusCard';
import { useDocumentTitle } from '../useDocumentTitle';

export function HomePage() {
  useDocumentTitle('Home');
  return (
    <>
      <Title order={1}>Home</Title>
      <ServiceStatusCard />
    </>
  );
}
