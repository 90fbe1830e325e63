import { Injectable } from '@nestjs/common';
import type { Prisma, PromptTemplate } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

/** Every Prisma call on prompt templates. */
@Injectable()
export class TemplateRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(data: Prisma.PromptTemplateUncheckedCreateInput): Promise<PromptTemplate> {
    return this.prisma.promptTemplate.create({ data });
  }

  find(tenant: string, id: string): Promise<PromptTemplate | null> {
    return this.prisma.promptTemplate.findFirst({ where: { tenant, id } });
  }
}
