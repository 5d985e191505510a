import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { Avatar, loadableImage } from './Avatar';

describe('Avatar', () => {
  it('loads only what the CSP allows: https, data and this origin', () => {
    const origin = 'http://127.0.0.1:8080';
    expect(loadableImage('https://avatars.githubusercontent.com/u/1', origin)).toBe(true);
    expect(loadableImage('data:image/png;base64,AAAA', origin)).toBe(true);
    expect(loadableImage('/avatars/me', origin)).toBe(true);
    expect(loadableImage('http://127.0.0.1:9/avatars/sandbox-dev', origin)).toBe(false);
    expect(loadableImage('javascript:alert(1)', origin)).toBe(false);
  });

  it('shows initials instead of an image the CSP would block', () => {
    const { container } = render(<Avatar url="http://127.0.0.1:9/avatars/sandbox-dev" login="sandbox-dev" />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toBe('SA');
    const ok = render(<Avatar url="https://avatars.githubusercontent.com/u/1" login="octo" />);
    expect(ok.container.querySelector('img')?.getAttribute('src')).toBe('https://avatars.githubusercontent.com/u/1');
  });
});
