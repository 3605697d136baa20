import { ApiProperty } from '@nestjs/swagger';
import { Permission } from '../permissions';
import { carriesInventory, Inventory, maskInventory, NO_PERMISSIONS } from './inventory';

class Assigned {
  @Inventory(Permission.LicensesView) @ApiProperty() licenseKey: string;
  @ApiProperty() downloadLink: string;
}

class Row {
  @ApiProperty() id: string;
  @Inventory(Permission.VouchersView) @ApiProperty() code: string;
  @ApiProperty({ type: Assigned, nullable: true }) assigned: Assigned | null;
  @ApiProperty({ type: () => [Assigned] }) history: Assigned[];
}

class Page {
  @ApiProperty({ type: [Row] }) rows: Row[];
  @ApiProperty() total: number;
}

class SpecialRow extends Row {
  @Inventory(Permission.LicensesView) @ApiProperty() productKey: string;
}

class Plain {
  @ApiProperty() name: string;
  @ApiProperty({ type: String }) licenseKey: string;
}

const KEY = 'AAAAA-BBBBB-CCCCC';
const MASKED = 'AAAAA-•••••-CCCCC';
const row = (): Row => ({
  id: '1',
  code: 'CODE-1234-5678',
  assigned: { licenseKey: KEY, downloadLink: 'https://x' },
  history: [{ licenseKey: KEY, downloadLink: 'https://y' }],
});

describe('maskInventory (inventory masked by declaration)', () => {
  it('masks declared fields, nested and in arrays, for a reader without the permission', () => {
    const page: Page = { rows: [row()], total: 1 };
    expect(maskInventory(page, Page, NO_PERMISSIONS)).toEqual({
      rows: [
        {
          id: '1',
          code: 'CODE-••••-5678',
          assigned: { licenseKey: MASKED, downloadLink: 'https://x' },
          history: [{ licenseKey: MASKED, downloadLink: 'https://y' }],
        },
      ],
      total: 1,
    });
    expect(maskInventory([row()], [Row], ['dashboard.view'])[0].assigned?.licenseKey).toBe(MASKED);
  });

  it('each field by its own permission; a reader with every permission gets the value itself', () => {
    const page: Page = { rows: [row()], total: 1 };
    const keysOnly = maskInventory(page, Page, [Permission.LicensesView]);
    expect(keysOnly.rows[0].code).toBe('CODE-••••-5678');
    expect(keysOnly.rows[0].assigned?.licenseKey).toBe(KEY);
    expect(maskInventory(page, Page, [Permission.LicensesView, Permission.VouchersView])).toBe(page);
  });

  it('never changes the value it is given; null and absent fields stay as they are', () => {
    const original = row();
    maskInventory(original, Row, NO_PERMISSIONS);
    expect(original).toEqual(row());
    expect(maskInventory({ ...row(), assigned: null }, Row, NO_PERMISSIONS).assigned).toBeNull();
    expect(maskInventory(null, Row, NO_PERMISSIONS)).toBeNull();
  });

  it('a subclass keeps the declarations it inherits and adds its own', () => {
    const special: SpecialRow = { ...row(), productKey: KEY };
    const masked = maskInventory(special, SpecialRow, NO_PERMISSIONS);
    expect(masked.productKey).toBe(MASKED);
    expect(masked.assigned?.licenseKey).toBe(MASKED);
  });

  it('a type without declarations carries no inventory: a field merely named like one is left alone', () => {
    expect(carriesInventory(Plain)).toBe(false);
    const plain = { name: 'x', licenseKey: KEY };
    expect(maskInventory(plain, Plain, NO_PERMISSIONS)).toBe(plain);
    expect(carriesInventory([Page])).toBe(true);
  });
});
